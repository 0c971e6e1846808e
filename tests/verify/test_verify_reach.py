"""What `verify` reads beyond the declared resources: what AWS creates on the platform's behalf (found
by following references, not tags), what is attached to a declared resource without being declared,
and the coverage the report lists. Changes are made in moto the way an operator would."""

from __future__ import annotations

import json
from typing import Any

from accelplane.verify.results import CheckId, Status, VerifyReport
from accelplane.verify.verify_output import render_verify
from tests.verify.conftest import failures
from tests.verify.moto_platform import MotoPlatform

INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
TARGET_GROUP = "aws:lb/targetGroup:TargetGroup"


def results(report: VerifyReport, check: str) -> list[Any]:
    return [r for r in report.results if r.check == check]


def cluster_security_group(live: MotoPlatform) -> str:
    cluster = live.client("eks").describe_cluster(name=live.declared.platform.name)["cluster"]
    return cluster["resourcesVpcConfig"]["clusterSecurityGroupId"]


def test_ssh_from_anywhere_on_the_eks_created_cluster_security_group_is_drift(
    live_dev: MotoPlatform, run_verify: Any
) -> None:
    # EKS creates this group untagged; the launch templates attach it to every node, training included.
    live_dev.client("ec2").authorize_security_group_ingress(
        GroupId=cluster_security_group(live_dev),
        IpPermissions=[{"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}],
    )

    report = run_verify()

    [unexpected] = results(report, CheckId.drift_unexpected)
    assert unexpected.type == INGRESS and unexpected.status is Status.failed
    assert "the EKS cluster security group of acme-ml-dev (created by EKS)" in unexpected.message
    assert "ingress tcp ports 22-22 from 0.0.0.0/0" in unexpected.message
    [ssh] = results(report, "AP-NET-002")
    assert ssh.name == unexpected.name and ssh.status is Status.failed


def test_the_rules_eks_puts_in_its_cluster_security_group_are_not_drift(
    live_dev: MotoPlatform, run_verify: Any
) -> None:
    group = cluster_security_group(live_dev)
    rules = live_dev.client("ec2").describe_security_group_rules(Filters=[{"Name": "group-id", "Values": [group]}])
    # EKS's two: all traffic from the group itself, all traffic out.
    assert len(rules["SecurityGroupRules"]) == 2

    report = run_verify()

    assert failures(report) == []
    assert report.coverage[INGRESS] >= 1 + sum(1 for _ in live_dev.declared.of_type(INGRESS))


def test_a_hand_made_target_group_behind_a_rule_on_the_https_listener_is_drift(
    live_dev: MotoPlatform, run_verify: Any
) -> None:
    elb = live_dev.client("elbv2")
    vpc = live_dev.live_id[f"{live_dev.declared.platform.name}-network-vpc"]
    # No platform tags: found because it is bound to the platform's load balancer.
    hand_made = elb.create_target_group(Name="debug-backend", Protocol="HTTP", Port=8080, VpcId=vpc)["TargetGroups"][0][
        "TargetGroupArn"
    ]
    elb.create_rule(
        ListenerArn=live_dev.https_listener(),
        Priority=1,
        Conditions=[{"Field": "path-pattern", "PathPatternConfig": {"Values": ["/*"]}}],
        Actions=[{"Type": "forward", "TargetGroupArn": hand_made}],
    )

    report = run_verify()

    unexpected = {r.type: r for r in results(report, CheckId.drift_unexpected)}
    group = unexpected[TARGET_GROUP]
    assert group.status is Status.failed
    assert "a target group bound to acme-ml-dev-inference-alb that the declaration does not have" in group.message
    assert hand_made in group.message
    assert "aws:lb/listenerRule:ListenerRule" in unexpected  # and the rule that sends traffic to it


def test_an_extra_listener_on_the_platform_load_balancer_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    lb = live_dev.live_id[f"{live_dev.declared.platform.name}-inference-alb"]
    live_dev.client("elbv2").create_listener(
        LoadBalancerArn=lb,
        Protocol="HTTP",
        Port=8080,
        DefaultActions=[{"Type": "fixed-response", "FixedResponseConfig": {"StatusCode": "200"}}],
    )

    report = run_verify()

    [unexpected] = results(report, CheckId.drift_unexpected)
    assert unexpected.type == "aws:lb/listener:Listener"
    assert "a listener on acme-ml-dev-inference-alb that the declaration does not have" in unexpected.message


def test_the_report_lists_live_objects_read_per_type(live_dev: MotoPlatform, run_verify: Any) -> None:
    report = run_verify()

    declared = live_dev.declared
    # Every declared security group and the EKS-created cluster security group.
    assert report.coverage[SECURITY_GROUP] == len(declared.of_type(SECURITY_GROUP)) + 1
    assert report.coverage["aws:eks/nodeGroup:NodeGroup"] == len(declared.of_type("aws:eks/nodeGroup:NodeGroup"))
    # The node role's entry (EKS's, for the node groups) and the cluster creator's.
    assert report.coverage["aws:eks/accessEntry:AccessEntry"] == 2
    assert json.loads(render_verify(report, "json"))["coverage"] == report.coverage
    for fmt in ("table", "markdown"):
        assert f"{report.coverage[SECURITY_GROUP]} {SECURITY_GROUP}" in render_verify(report, fmt), fmt


# -- settings the program leaves at AWS's default -------------------------------------------------


def changed(report: VerifyReport, name: str) -> dict[str, tuple[Any, Any]]:
    return {r.path: (r.expected, r.actual) for r in results(report, CheckId.drift_changed) if r.name == name}


def test_a_role_session_lengthened_by_hand_is_drift_though_the_program_leaves_it_unset(
    live_dev: MotoPlatform, run_verify: Any
) -> None:
    [role] = [r for r in live_dev.declared.of_type("aws:iam/role:Role") if "maxSessionDuration" not in r.props][:1]
    live_dev.client("iam").update_role(RoleName=live_dev.live_id[role.name], MaxSessionDuration=43200)

    report = run_verify()

    assert changed(report, role.name) == {"maxSessionDuration": (3600, 43200)}
    [result] = [r for r in results(report, CheckId.drift_changed) if r.name == role.name]
    assert "not set by the program (AWS default 3600), live 43200" in result.message


def test_deletion_protection_turned_on_by_hand_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    name = f"{live_dev.declared.platform.name}-inference-alb"
    live_dev.client("elbv2").modify_load_balancer_attributes(
        LoadBalancerArn=live_dev.live_id[name], Attributes=[{"Key": "deletion_protection.enabled", "Value": "true"}]
    )

    report = run_verify()

    assert changed(report, name) == {"enableDeletionProtection": (False, True)}


def test_dns_hostnames_turned_off_is_drift_now_that_vpc_attributes_are_read(
    live_dev: MotoPlatform, run_verify: Any
) -> None:
    name = f"{live_dev.declared.platform.name}-network-vpc"
    live_dev.client("ec2").modify_vpc_attribute(VpcId=live_dev.live_id[name], EnableDnsHostnames={"Value": False})

    report = run_verify()

    assert changed(report, name) == {"enableDnsHostnames": (True, False)}
    assert not [r for r in results(report, CheckId.drift_unverifiable) if r.name == name]
