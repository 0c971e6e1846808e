"""What moto cannot show, verified on AWS's answers through botocore's Stubber.

Each test runs `verify` against the dev platform created in moto, except for one service whose
client answers from a `botocore.stub.Stubber`: moto's own answers for what moto models, with the one
change AWS would show after an operator's hand-made change that moto cannot make (each test's
docstring says which and why). The Stubber validates every answer against botocore's service model,
so the shapes are the real API's, and `assert_no_pending_responses` proves verify made every call.
Calls run with concurrency 1 so that they come in the order the answers are queued.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable
from typing import Any

import boto3
from botocore.stub import Stubber

from accelplane.clouds.aws.clients import AwsClients
from accelplane.verify.results import CheckId, Status, VerifyReport
from tests.verify.conftest import failures
from tests.verify.moto_platform import ACCOUNT, CLUSTER_ADMIN_POLICY, MotoPlatform

Change = Callable[[dict[str, Any]], None]


def _plain(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "ResponseMetadata"}


def _fresh_clients() -> AwsClients:
    # A session of its own: its clients carry only the Stubber (and verify's own hooks).
    return AwsClients("us-east-1", session=boto3.Session(region_name="us-east-1"))


def eks_stubbed(
    live: MotoPlatform,
    *,
    cluster: Change | None = None,
    nodegroups: dict[str, Change] | None = None,
    addons: list[str] | None = None,
    extra_entries: dict[str, dict[str, Any]] | None = None,
    extra_policies: dict[str, list[dict[str, Any]]] | None = None,
    list_entries_error: str | None = None,
) -> tuple[AwsClients, Stubber]:
    """Verify's clients with EKS answering, in verify's call order, what AWS would after the changes."""
    eks = live.client("eks")
    name = live.declared.platform.name
    described = _plain(eks.describe_cluster(name=name))
    if cluster:
        cluster(described["cluster"])
    names = eks.list_nodegroups(clusterName=name)["nodegroups"]
    groups = []
    for group in names:
        answer = _plain(eks.describe_nodegroup(clusterName=name, nodegroupName=group))
        if nodegroups and group in nodegroups:
            nodegroups[group](answer["nodegroup"])
        groups.append(answer)
    entries = {
        p: _plain(eks.describe_access_entry(clusterName=name, principalArn=p))["accessEntry"]
        for p in eks.list_access_entries(clusterName=name)["accessEntries"]
    }
    entries.update(extra_entries or {})
    policies = {
        p: _plain(eks.list_associated_access_policies(clusterName=name, principalArn=p))["associatedAccessPolicies"]
        for p in entries
        if p not in (extra_entries or {})
    }
    for principal, associated in (extra_policies or {}).items():
        policies.setdefault(principal, []).extend(associated)
    node_roles = {g["nodegroup"]["nodeRole"] for g in groups}

    clients = _fresh_clients()
    stubber = Stubber(clients("eks"))
    stubber.add_response("describe_cluster", described, {"name": name})
    stubber.add_response("list_nodegroups", {"nodegroups": names}, {"clusterName": name, "maxResults": 100})
    for group, answer in zip(names, groups, strict=True):
        stubber.add_response("describe_nodegroup", answer, {"clusterName": name, "nodegroupName": group})
    stubber.add_response("list_addons", {"addons": addons or []}, {"clusterName": name, "maxResults": 100})
    if list_entries_error:
        stubber.add_client_error(
            "list_access_entries", list_entries_error, "not authorized to perform eks:ListAccessEntries", 403
        )
    else:
        stubber.add_response(
            "list_access_entries", {"accessEntries": sorted(entries)}, {"clusterName": name, "maxResults": 100}
        )
        for principal in sorted(p for p in entries if p not in node_roles):
            stubber.add_response(
                "describe_access_entry",
                {"accessEntry": entries[principal]},
                {"clusterName": name, "principalArn": principal},
            )
        for principal in sorted(entries):
            stubber.add_response(
                "list_associated_access_policies",
                {
                    "clusterName": name,
                    "principalArn": principal,
                    "associatedAccessPolicies": policies.get(principal, []),
                },
                {"clusterName": name, "principalArn": principal, "maxResults": 100},
            )
    stubber.activate()
    return clients, stubber


def run(run_verify: Any, clients: AwsClients, stubber: Stubber) -> VerifyReport:
    report = run_verify(clients=clients, concurrency=1)
    stubber.assert_no_pending_responses()
    return report


def named(report: VerifyReport, check: str, name: str | None = None) -> list[Any]:
    return [r for r in report.results if r.check == check and (name is None or r.name == name)]


def changed(report: VerifyReport, name: str) -> dict[str, tuple[Any, Any]]:
    return {r.path: (r.expected, r.actual) for r in named(report, CheckId.drift_changed, name)}


def test_eks_as_aws_answers_for_the_platform_as_created_verifies_clean(live_dev: MotoPlatform, run_verify: Any) -> None:
    """The baseline of the tests below: the Stubber's answers for an unchanged platform pass."""
    report = run(run_verify, *eks_stubbed(live_dev))

    assert failures(report) == []
    assert report.coverage["aws:eks/accessEntry:AccessEntry"] == 2


def test_node_group_moved_to_another_launch_template_version_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto has no `UpdateNodegroupVersion`: a node group there stays on the version it was made with."""
    template = live_dev.live_id["acme-ml-dev-system-lt"]
    live_dev.client("ec2").create_launch_template_version(
        LaunchTemplateId=template,
        SourceVersion="1",
        LaunchTemplateData={"MetadataOptions": {"HttpTokens": "optional", "HttpPutResponseHopLimit": 2}},
    )

    def moved(group: dict[str, Any]) -> None:
        group["launchTemplate"]["version"] = "2"

    report = run(run_verify, *eks_stubbed(live_dev, nodegroups={"system": moved}))

    [version] = named(report, CheckId.launch_template_version, "acme-ml-dev-system-ng")
    assert version.status is Status.failed
    assert "runs launch template version 2 but the template's default version" in version.message
    assert "is 1: the node group was moved by hand" in version.message
    # And what that version holds is compared with the declaration: IMDSv1 back on.
    assert changed(report, "acme-ml-dev-system-lt")["metadataOptions.httpTokens"] == ("required", "optional")


def test_node_group_on_another_ami_release_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto has no `UpdateNodegroupVersion` (AMI release upgrades) either."""

    def upgraded(group: dict[str, Any]) -> None:
        group["releaseVersion"] = "1.33.5-20251215"

    report = run(run_verify, *eks_stubbed(live_dev, nodegroups={"infer-l4": upgraded}))

    assert changed(report, "acme-ml-dev-infer-l4-ng") == {"releaseVersion": ("1.33.5-20251120", "1.33.5-20251215")}


def test_control_plane_version_changed_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto has no `UpdateClusterVersion`."""

    def upgraded(cluster: dict[str, Any]) -> None:
        cluster["version"] = "1.34"

    report = run(run_verify, *eks_stubbed(live_dev, cluster=upgraded))

    assert changed(report, "acme-ml-dev-eks-cluster") == {"version": ("1.33", "1.34")}


def test_authentication_mode_changed_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto's `DescribeCluster` has no `accessConfig` at all (moto_platform sets the created one) and its
    `UpdateClusterConfig` ignores `accessConfig`."""

    def widened(cluster: dict[str, Any]) -> None:
        cluster["accessConfig"]["authenticationMode"] = "API_AND_CONFIG_MAP"

    report = run(run_verify, *eks_stubbed(live_dev, cluster=widened))

    assert changed(report, "acme-ml-dev-eks-cluster") == {
        "accessConfig.authenticationMode": ("API", "API_AND_CONFIG_MAP")
    }


def test_an_extra_control_plane_security_group_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto's `UpdateClusterConfig` replaces the whole VPC configuration (the cluster security group
    too) where AWS adds the group; the program sets no additional group, so AWS's default (none) is
    the desired state."""
    ec2 = live_dev.client("ec2")
    vpc = live_dev.live_id["acme-ml-dev-network-vpc"]
    extra = ec2.create_security_group(GroupName="ops-access", Description="ops", VpcId=vpc)["GroupId"]

    def attached(cluster: dict[str, Any]) -> None:
        cluster["resourcesVpcConfig"]["securityGroupIds"] = [extra]

    report = run(run_verify, *eks_stubbed(live_dev, cluster=attached))

    assert changed(report, "acme-ml-dev-eks-cluster") == {"vpcConfig.securityGroupIds": ([], [extra])}


def test_an_access_entry_granted_by_hand_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto has no access entries (`ListAccessEntries` answers "Not yet implemented")."""
    principal = f"arn:aws:iam::{ACCOUNT}:role/contractor"
    created = dt.datetime.now(dt.UTC) + dt.timedelta(days=3)  # days after the cluster: not its creator's
    entry = {
        "clusterName": "acme-ml-dev",
        "principalArn": principal,
        "kubernetesGroups": ["system:masters"],
        "accessEntryArn": f"arn:aws:eks:us-east-1:{ACCOUNT}:access-entry/acme-ml-dev/role/{ACCOUNT}/contractor/1",
        "createdAt": created,
        "modifiedAt": created,
        "tags": {},
        "username": principal,
        "type": "STANDARD",
    }

    report = run(run_verify, *eks_stubbed(live_dev, extra_entries={principal: entry}))

    [unexpected] = named(report, CheckId.drift_unexpected)
    assert unexpected.type == "aws:eks/accessEntry:AccessEntry" and unexpected.status is Status.failed
    assert "an access entry of acme-ml-dev that the declaration does not grant" in unexpected.message
    assert principal in unexpected.message  # the live ARN; `actual` holds it with the account as a symbol
    assert unexpected.actual["kubernetesGroups"] == ["system:masters"]


def test_cluster_admin_associated_with_the_node_role_by_hand_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto has no access policy associations (`ListAssociatedAccessPolicies` answers "Not yet implemented")."""
    node_role = live_dev.client("iam").get_role(RoleName=live_dev.live_id["acme-ml-dev-node-role"])["Role"]["Arn"]
    now = dt.datetime.now(dt.UTC)
    admin = {
        "policyArn": CLUSTER_ADMIN_POLICY,
        "accessScope": {"type": "cluster", "namespaces": []},
        "associatedAt": now,
        "modifiedAt": now,
    }

    report = run(run_verify, *eks_stubbed(live_dev, extra_policies={node_role: [admin]}))

    [unexpected] = named(report, CheckId.drift_unexpected)
    assert unexpected.type == "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
    assert unexpected.status is Status.failed
    assert "an access policy associated with acme-ml-dev-node-role-" in unexpected.message
    assert "AmazonEKSClusterAdminPolicy" in unexpected.message
    # Both associations are read; the creator's own (made with the cluster) is EKS's, not reported.
    assert report.coverage["aws:eks/accessPolicyAssociation:AccessPolicyAssociation"] == 2


def test_an_addon_installed_by_hand_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto has no EKS add-ons (`ListAddons` answers "Not yet implemented")."""
    report = run(run_verify, *eks_stubbed(live_dev, addons=["amazon-cloudwatch-observability"]))

    [unexpected] = named(report, CheckId.drift_unexpected)
    assert unexpected.type == "aws:eks/addon:Addon"
    assert "an EKS add-on of acme-ml-dev that the declaration does not install" in unexpected.message
    assert "amazon-cloudwatch-observability" in unexpected.message


def test_access_entries_that_cannot_be_read_are_a_failed_finding(live_dev: MotoPlatform, run_verify: Any) -> None:
    """An access-denied answer needs IAM evaluation, which moto does not do."""
    report = run(run_verify, *eks_stubbed(live_dev, list_entries_error="AccessDeniedException"))

    [error] = [r for r in named(report, CheckId.read_error) if "eks.ListAccessEntries" in r.message]
    assert error.status is Status.failed and "AccessDeniedException" in error.message
    assert report.failed
    assert "aws:eks/accessEntry:AccessEntry" not in report.coverage


def test_kms_rotation_period_lengthened_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    """moto's `GetKeyRotationStatus` reports no `RotationPeriodInDays` (so against moto the period is
    not verified) and `EnableKeyRotation` there ignores a new period."""
    kms = live_dev.client("kms")
    aliases = kms.list_aliases()["Aliases"]
    declared_aliases = {a.props.get("name") for a in live_dev.declared.of_type("aws:kms/alias:Alias")}
    keys = sorted({a["TargetKeyId"] for a in aliases if a["AliasName"] in declared_aliases})
    lengthened = live_dev.key_id("data")

    clients = _fresh_clients()
    stubber = Stubber(clients("kms"))
    stubber.add_response("list_aliases", {"Aliases": copy.deepcopy(aliases)}, {"Limit": 100})
    for key in keys:
        stubber.add_response("describe_key", _plain(kms.describe_key(KeyId=key)), {"KeyId": key})
        rotation = {
            "KeyRotationEnabled": True,
            "KeyId": key,
            "RotationPeriodInDays": 730 if key == lengthened else 365,
            "NextRotationDate": dt.datetime.now(dt.UTC) + dt.timedelta(days=300),
        }
        stubber.add_response("get_key_rotation_status", rotation, {"KeyId": key})
        policy = _plain(kms.get_key_policy(KeyId=key, PolicyName="default"))
        stubber.add_response("get_key_policy", policy, {"KeyId": key, "PolicyName": "default"})
    stubber.activate()

    report = run(run_verify, clients, stubber)

    assert changed(report, "acme-ml-dev-data-key") == {"rotationPeriodInDays": (365, 730)}
    assert not changed(report, "acme-ml-dev-eks-key")
    assert not [r for r in named(report, CheckId.drift_unverifiable) if "rotationPeriodInDays" in r.message]
