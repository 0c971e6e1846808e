"""`accelplane preflight` on AWS: each verdict for the cases the deployment guides ask to confirm
before anything is created (quotas, zones, EFA, reservations, versions, images)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import boto3

from accelplane.clouds.aws.preflight.quotas import quota_for
from accelplane.config.loader import StackConfig
from accelplane.preflight.results import Status
from tests.preflight.conftest import FITTING_ZONES, NOW, PROD_RESERVATION, Account, only, reservation, variant


def test_a_stack_that_fits_is_clear(account: Account, fitting_prod: StackConfig) -> None:
    report = account.preflight(fitting_prod)
    blocking = [(c.check, c.subject, c.message) for c in report.blocking]
    assert blocking == [] and not report.failed
    # Every pool that is not in its reservation was counted against its family's quota.
    assert {c.subject.split()[0] for c in report.checks if c.check == "quota.vcpu"} == {
        "L-1216C47A", "L-DB2E81BA", "L-1945791B", "L-2C3B7624"}
    assert only(report, "interconnect.efa", "train-h100").has == "EFA, 32 interfaces, 3200 Gigabit"


def test_p_family_over_quota_names_the_code_and_the_value_to_request(account: Account, tmp_path: Path) -> None:
    # train-h100 on demand (no reservation): 4 max + 2 surge (one zone) = 6 x 192 vCPUs = 1152.
    stack = variant(tmp_path, ("        capacity: {type: capacity_reservation, reservation_id: cr-0a1b2c3d4e5f60718}\n",
                               ""))
    account.quotas["L-417A185B"] = 384.0
    account.run("p4d.24xlarge", 1)  # 96 vCPUs of P already running elsewhere in the account
    report = account.preflight(stack)
    check = only(report, "quota.vcpu", "L-417A185B")
    assert check.status is Status.failed
    assert "1152 vCPUs" in check.needs and "384 vCPUs (applied), 96 in use" in check.has
    assert check.headroom == "-864 vCPUs"
    assert "--quota-code L-417A185B --desired-value 1248" in check.fix
    assert report.failed


def test_the_default_value_where_none_is_applied(account: Account, fitting_prod: StackConfig) -> None:
    del account.quotas["L-1945791B"]
    account.defaults["L-1945791B"] = 32.0  # inf2: 8 max + 6 surge = 14 x 4 vCPUs = 56
    check = only(account.preflight(fitting_prod), "quota.vcpu", "L-1945791B")
    assert check.status is Status.failed and "32 vCPUs (AWS default)" in check.has


def test_the_stacks_own_nodes_are_not_counted_twice(account: Account, fitting_prod: StackConfig) -> None:
    account.quotas["L-DB2E81BA"] = 160.0  # infer-l40s needs 18 x 8 = 144
    account.run("g6e.2xlarge", 4, tags={"eks:cluster-name": "acme-ml"})  # this stack's own nodes
    assert only(account.preflight(fitting_prod), "quota.vcpu", "L-DB2E81BA").status is Status.passed
    account.run("g6e.2xlarge", 4, tags={"eks:cluster-name": "another-cluster"})  # 32 vCPUs elsewhere
    check = only(account.preflight(fitting_prod), "quota.vcpu", "L-DB2E81BA")
    assert check.status is Status.failed and "32 in use outside this cluster" in check.has


def test_spot_pools_draw_on_the_spot_quota(account: Account, tmp_path: Path) -> None:
    stack = variant(tmp_path, ("instance_type: g6e.2xlarge\n        software_profile: l40s-cuda12\n",
                               "instance_type: g6e.2xlarge\n        software_profile: l40s-cuda12\n"
                               "        capacity: {type: spot}\n"))
    account.quotas["L-3819A6DF"] = 64.0
    check = only(account.preflight(stack), "quota.vcpu", "L-3819A6DF")
    assert check.status is Status.failed and "All G and VT Spot Instance Requests" in check.subject


def test_quota_codes_follow_the_longest_family_prefix() -> None:
    assert quota_for("p5en.48xlarge", "spot").code == "L-C4BD4855"
    assert quota_for("p4d.24xlarge", "spot").code == "L-7212CCBC"
    assert quota_for("p5.48xlarge", "on_demand").code == "L-417A185B"
    assert quota_for("dl1.24xlarge", "on_demand").code == "L-6E869C2A"  # not Standard's "d"
    assert quota_for("inf2.xlarge", "on_demand").code == "L-1945791B"  # not Standard's "i"
    assert quota_for("trn1.32xlarge", "spot").code == "L-6B0D517C"  # not Standard's "t"
    assert quota_for("p6-b200.48xlarge", "spot") is None  # no sourced code: unknown, never fit
    # Spot codes Service Quotas lists for ec2 beside the on-demand ones of the same families.
    assert quota_for("dl1.24xlarge", "spot").code == "L-85EED4F7"
    assert quota_for("f2.12xlarge", "spot").code == "L-88CF9481"
    assert quota_for("x2iedn.32xlarge", "spot").code == "L-E3A00192"


def test_a_quota_with_no_known_code_is_unknown_and_blocks(account: Account, tmp_path: Path) -> None:
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b")
    system = "instance_type: m7i.2xlarge\n        scaling: {min: 3, desired: 3, max: 6}\n"
    # Spot High Memory (u-): Service Quotas lists no Spot code for the family (the instances are On-Demand only).
    spot_u = ("instance_type: u-6tb1.56xlarge\n        capacity: {type: spot}\n"
              "        scaling: {min: 3, desired: 3, max: 6}\n")
    stack = variant(tmp_path, FITTING_ZONES, (system, spot_u))
    report = account.preflight(stack)
    check = only(report, "quota.vcpu", "pool system")
    assert check.status is Status.unknown and "no known Service Quotas code for spot u-6tb1.56xlarge" in check.message
    assert report.failed and [c.subject for c in report.blocking] == ["pool system"]
    assert not account.preflight(stack, allow_unknown=True).failed


def test_a_type_not_offered_in_a_zone_of_the_pool(account: Account, prod: StackConfig) -> None:
    # moto records AWS's offerings: trn1.32xlarge is in us-west-2b and us-west-2d only, and the
    # placement group keeps train-trn1 in the first zone, us-west-2a.
    check = only(account.preflight(prod), "offering.zone", "train-trn1")
    assert check.status is Status.failed
    assert "not offered in us-west-2a" in check.message
    assert "list a zone that offers trn1.32xlarge first (us-west-2b, us-west-2d)" in check.fix


def test_efa_on_a_type_live_ec2_says_has_none(account: Account, fitting_prod: StackConfig) -> None:
    # The stack file's own check refuses EFA on a type the catalog knows lacks it; preflight asks EC2
    # itself, which is what counts when the catalog is behind. A platform object past that check:
    pools = [p.model_copy(update={"efa": True}) if p.name == "infer-l40s" else p
             for p in fitting_prod.platform.node_pools]
    platform = fitting_prod.platform.model_copy(update={"node_pools": pools})
    stack = StackConfig(fitting_prod.stack, fitting_prod.path, platform, fitting_prod.config)
    check = only(account.preflight(stack), "interconnect.efa", "infer-l40s")
    assert check.status is Status.failed and check.has == "no EFA, Up to 20 Gigabit"


def test_an_expired_reservation(account: Account, fitting_prod: StackConfig) -> None:
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b", state="expired",
                                                        ends=NOW - dt.timedelta(days=1))
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.failed
    assert "the capacity reservation is expired" in check.message
    assert "ends 2026-12-04 12:00 UTC (ended 24 hours ago" in check.message


def test_an_undersized_reservation_in_the_wrong_zone(account: Account, prod: StackConfig) -> None:
    account.reservations[PROD_RESERVATION] = reservation(count=2, zone="us-west-2c")
    check = only(account.preflight(prod), "reservation")
    assert check.status is Status.failed
    assert "it holds 2 instances, the pool's maximum is 4" in check.message
    assert "it is in us-west-2c, the pool's nodes are in us-west-2a" in check.message
    assert "--instance-count 4" in check.fix


def test_a_reservation_that_holds_the_pool_but_not_its_surge_warns(account: Account,
                                                                    fitting_prod: StackConfig) -> None:
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b", count=4)
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.warning and "raise it to 6 instances" in check.fix


def test_a_capacity_block_ending_within_min_days(account: Account, fitting_prod: StackConfig) -> None:
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b", kind="capacity-block",
                                                        ends=NOW + dt.timedelta(days=3))
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.failed and "capacity block" in check.has and "3 days left" in check.message
    assert only(account.preflight(fitting_prod, min_days=2), "reservation").status is Status.passed


def test_a_reservation_ending_in_23_hours_says_hours_not_0_days(account: Account,
                                                                 fitting_prod: StackConfig) -> None:
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b", ends=NOW + dt.timedelta(hours=23))
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.failed
    assert "it ends 2026-12-06 11:00 UTC (23 hours left, at least 7 days wanted)" in check.message


def test_a_capacity_block_that_starts_in_ten_days_is_no_for_a_pool_that_wants_nodes_now(
        account: Account, fitting_prod: StackConfig) -> None:
    # The EKS guide: a node group on a capacity block stays at 0 until the block is active.
    account.reservations[PROD_RESERVATION] = reservation(
        zone="us-west-2b", kind="capacity-block", state="scheduled", starts=NOW + dt.timedelta(days=10),
        ends=NOW + dt.timedelta(days=24))
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.failed
    assert "starts 2026-12-15 12:00 UTC" in check.has
    assert "it starts 2026-12-15 12:00 UTC (10 days away), the pool wants 2 nodes before that" in check.message
    assert "scaling.min 0 and desired 0 until the block is active" in check.fix


def test_a_scheduled_capacity_block_holds_a_pool_that_waits_at_zero(account: Account, tmp_path: Path) -> None:
    stack = variant(tmp_path, FITTING_ZONES, ("scaling: {min: 0, desired: 2, max: 4}\n        disk_gib: 1000",
                                              "scaling: {min: 0, desired: 0, max: 4}\n        disk_gib: 1000"))
    account.reservations[PROD_RESERVATION] = reservation(
        zone="us-west-2b", kind="capacity-block", state="scheduled", starts=NOW + dt.timedelta(days=10),
        ends=NOW + dt.timedelta(days=24))
    check = only(account.preflight(stack), "reservation")
    assert check.status is not Status.failed, check.message


def test_a_reservation_another_cluster_uses_up_is_no(account: Account, fitting_prod: StackConfig) -> None:
    # AvailableInstanceCount 0 of 6: the total is there, none of it free.
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b", available=0)
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.failed
    assert "6 of its 6 instances are in use elsewhere: 0 free, the pool's maximum is 4" in check.message
    assert check.headroom == "-4 instances" and "0 of 6xp5.48xlarge free" in check.has


def test_a_reservation_that_does_not_exist(account: Account, fitting_prod: StackConfig) -> None:
    del account.reservations[PROD_RESERVATION]
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.failed and f"no capacity reservation {PROD_RESERVATION}" in check.message


def test_an_unsupported_eks_version(account: Account, fitting_prod: StackConfig) -> None:
    account.versions = [{"clusterVersion": "1.33", "versionStatus": "UNSUPPORTED", "status": "unsupported"}]
    check = only(account.preflight(fitting_prod), "cluster.version")
    assert check.status is Status.failed and "no longer supports 1.33" in check.message
    account.versions = []
    assert "does not offer Kubernetes 1.33" in only(account.preflight(fitting_prod), "cluster.version").message


def test_extended_support_ending_within_min_days_is_no_and_far_from_it_a_cost_warning(
        account: Account, fitting_prod: StackConfig) -> None:
    account.versions = [{"clusterVersion": "1.33", "clusterType": "eks", "versionStatus": "EXTENDED_SUPPORT",
                         "status": "extended-support",
                         "endOfStandardSupportDate": NOW - dt.timedelta(days=300),
                         "endOfExtendedSupportDate": NOW + dt.timedelta(days=3)}]
    check = only(account.preflight(fitting_prod), "cluster.version")
    assert check.status is Status.failed
    assert check.message.startswith("extended support for 1.33 ends 2026-12-08 (3 days left, at least 7 days wanted): "
                                    "then EKS upgrades the control plane to the next version")
    assert check.has == "extended support (extended support until 2026-12-08)"
    account.versions[0]["endOfExtendedSupportDate"] = NOW + dt.timedelta(days=200)
    far = only(account.preflight(fitting_prod), "cluster.version")
    assert far.status is Status.warning and "costs more per hour" in far.message


def test_standard_support_ending_within_min_days_is_no(account: Account, fitting_prod: StackConfig) -> None:
    assert isinstance(account.versions, list)
    account.versions[0]["endOfStandardSupportDate"] = NOW + dt.timedelta(days=5)
    check = only(account.preflight(fitting_prod), "cluster.version")
    assert check.status is Status.failed
    assert check.message == ("standard support for 1.33 ends 2026-12-10 (5 days left, at least 7 days wanted): then "
                             "the cluster moves to extended support, billed higher per hour")


def test_an_ami_release_aws_does_not_publish(account: Account, fitting_prod: StackConfig) -> None:
    del account.parameters["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/"
                           "amazon-eks-node-al2023-x86_64-nvidia-1.33-v20251120/image_id"]
    report = account.preflight(fitting_prod)
    failed = sorted(c.subject for c in report.checks if c.check == "node.image" and c.status is Status.failed)
    assert failed == ["pool infer-l40s (AL2023_x86_64_NVIDIA, release 1.33.5-20251120)",
                      "pool train-h100 (AL2023_x86_64_NVIDIA, release 1.33.5-20251120)"]
    # The CPU pool pins no release: its AMI type's recommended image is the one checked.
    assert only(report, "node.image", "pool system").status is Status.passed


def test_preflight_makes_only_read_calls(account: Account, fitting_prod: StackConfig) -> None:
    account.preflight(fitting_prod)
    called = set(account.clients.calls.to_json()["by_operation"])
    assert all(op.split(".")[1].startswith(("Describe", "Get", "List")) for op in called), called


def test_a_reservation_in_another_zone_of_an_existing_vpc_names_a_subnet_there(account: Account,
                                                                              tmp_path: Path) -> None:
    ec2 = boto3.client("ec2", region_name="us-west-2")  # moto's EC2, as the account's owner sets it up
    vpc = ec2.create_vpc(CidrBlock="10.20.0.0/16")["Vpc"]["VpcId"]
    private = ec2.create_subnet(VpcId=vpc, CidrBlock="10.20.0.0/18", AvailabilityZone="us-west-2a")["Subnet"]
    spare = ec2.create_subnet(VpcId=vpc, CidrBlock="10.20.128.0/18", AvailabilityZone="us-west-2c")["Subnet"]
    other_vpc = ec2.create_vpc(CidrBlock="10.30.0.0/16")["Vpc"]["VpcId"]
    ec2.create_subnet(VpcId=other_vpc, CidrBlock="10.30.0.0/18", AvailabilityZone="us-west-2c")  # not this VPC's
    stack = variant(tmp_path, ("""      new_vpc:
        cidr: 10.20.0.0/16
        availability_zones: [us-west-2a, us-west-2b, us-west-2c]
        private_subnets: [10.20.0.0/18, 10.20.64.0/18, 10.20.128.0/18]
        public_subnets: [10.20.192.0/24, 10.20.193.0/24, 10.20.194.0/24]
        nat: per_az
""", f"""      existing_vpc:
        vpc_id: {vpc}
        cidr: 10.20.0.0/16
        private_subnet_ids: [{private['SubnetId']}]
        public_subnet_ids: [{private['SubnetId']}]
"""))
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2c")
    check = only(account.preflight(stack), "reservation")
    assert check.status is Status.failed
    assert "it is in us-west-2c, the pool's nodes are in us-west-2a" in check.message
    # train-h100 is in a placement group: the subnet goes first in the list.
    assert (f"add {spare['SubnetId']} (a subnet of {vpc} in us-west-2c) first in "
            "network.existing_vpc.private_subnet_ids") in check.fix


def test_idle_committed_capacity_is_said(account: Account, fitting_prod: StackConfig) -> None:
    # Active, 8 instances, 2 running (6 free): the pool fits, and the 6 idle ones bill all the same.
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b", count=8, available=6)
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.passed
    assert check.message == ("the capacity reservation holds the pool; 6 of its 8 instances stand idle now, billed "
                             "whether used or not")
