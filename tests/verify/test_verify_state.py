"""Live-state evaluation on response shapes moto cannot produce, validated by botocore's Stubber.

moto reports every registered IP target healthy and every node group ACTIVE without issues; AWS
reports unhealthy and draining targets, degraded node groups and overdue rotations. The Stubber
checks each canned response against the service model, so the shapes are AWS's, not guesses.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from accelplane.clouds.aws.clients import AwsClients, ReadOnlyError, check_read_only
from accelplane.clouds.aws.verify.state_checks import node_group_status, secret_rotation, secret_value, target_health
from accelplane.rules.view import Resource
from accelplane.verify.results import CheckId, Status

TARGET_GROUP = Resource(
    urn="urn:pulumi:dev::accelplane::aws:lb/targetGroup:TargetGroup::tg",
    type="aws:lb/targetGroup:TargetGroup",
    name="tg",
    props={},
)
NODE_GROUP = Resource(
    urn="urn:pulumi:dev::accelplane::aws:eks/nodeGroup:NodeGroup::ng",
    type="aws:eks/nodeGroup:NodeGroup",
    name="ng",
    props={},
)
SECRET = Resource(
    urn="urn:pulumi:dev::accelplane::aws:secretsmanager/secret:Secret::s",
    type="aws:secretsmanager/secret:Secret",
    name="s",
    props={},
)
TG_ARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/tg/0123456789abcdef"


def _target(ip: str, state: str, reason: str | None = None, description: str | None = None) -> dict[str, Any]:
    health: dict[str, Any] = {"State": state}
    if reason:
        health["Reason"] = reason
    if description:
        health["Description"] = description
    return {"Target": {"Id": ip, "Port": 8000}, "HealthCheckPort": "traffic-port", "TargetHealth": health}


def _described_health(targets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    client = boto3.client("elbv2", region_name="us-east-1")
    with Stubber(client) as stubber:
        stubber.add_response(
            "describe_target_health", {"TargetHealthDescriptions": targets}, {"TargetGroupArn": TG_ARN}
        )
        return client.describe_target_health(TargetGroupArn=TG_ARN)["TargetHealthDescriptions"]


@pytest.mark.parametrize(
    ("targets", "status", "fragment"),
    [
        ([_target("10.0.0.1", "healthy"), _target("10.0.0.2", "healthy")], Status.passed, "2 healthy"),
        (
            [_target("10.0.0.1", "healthy"), _target("10.0.0.2", "unhealthy", "Target.Timeout", "Request timed out")],
            Status.failed,
            "10.0.0.2:8000 unhealthy (Target.Timeout: Request timed out)",
        ),
        ([_target("10.0.0.1", "unavailable", "Elb.InternalError")], Status.failed, "unavailable"),
        ([_target("10.0.0.1", "initial", "Elb.RegistrationInProgress")], Status.warning, "no healthy target yet"),
        (
            [_target("10.0.0.1", "healthy"), _target("10.0.0.2", "draining", "Target.DeregistrationInProgress")],
            Status.warning,
            "1 draining, 1 healthy",
        ),
        ([], Status.failed, "no targets registered"),
    ],
    ids=["all-healthy", "one-unhealthy", "unavailable", "initial", "draining", "none"],
)
def test_target_health_evaluation(targets: list[dict[str, Any]], status: Status, fragment: str) -> None:
    result = target_health(TARGET_GROUP, _described_health(targets))

    assert result.check == CheckId.target_health and result.name == "tg"
    assert result.status is status
    assert fragment in result.message


def test_degraded_node_group_fails_with_its_health_issues() -> None:
    client = boto3.client("eks", region_name="us-east-1")
    group = {
        "nodegroupName": "ng",
        "clusterName": "c",
        "status": "DEGRADED",
        "health": {
            "issues": [
                {
                    "code": "AsgInstanceLaunchFailures",
                    "message": "InsufficientInstanceCapacity: no g6.xlarge capacity",
                    "resourceIds": ["eks-ng-asg"],
                }
            ]
        },
    }
    with Stubber(client) as stubber:
        stubber.add_response("describe_nodegroup", {"nodegroup": group}, {"clusterName": "c", "nodegroupName": "ng"})
        described = client.describe_nodegroup(clusterName="c", nodegroupName="ng")["nodegroup"]

    result = node_group_status(NODE_GROUP, described)

    assert result.status is Status.failed
    assert "DEGRADED" in result.message and "AsgInstanceLaunchFailures: InsufficientInstanceCapacity" in result.message


def test_updating_node_group_warns() -> None:
    assert node_group_status(NODE_GROUP, {"status": "UPDATING", "health": {"issues": []}}).status is Status.warning


def test_secret_value_is_judged_from_version_stages_only() -> None:
    assert secret_value(SECRET, {"SecretVersionsToStages": {"v1": ["AWSCURRENT"]}}).status is Status.passed
    assert secret_value(SECRET, {"SecretVersionsToStages": {"v1": ["AWSPENDING"]}}).status is Status.failed
    assert secret_value(SECRET, {}).status is Status.failed


def test_secret_rotation() -> None:
    now = datetime(2026, 6, 1, tzinfo=UTC)
    rotating = {"RotationEnabled": True, "RotationRules": {"AutomaticallyAfterDays": 30}}

    overdue = secret_rotation(
        SECRET, {**rotating, "LastRotatedDate": now - timedelta(days=40)}, declared_rotation=True, now=now
    )
    on_time = secret_rotation(
        SECRET, {**rotating, "LastRotatedDate": now - timedelta(days=10)}, declared_rotation=True, now=now
    )
    undeclared = secret_rotation(
        SECRET, {**rotating, "LastRotatedDate": now - timedelta(days=10)}, declared_rotation=False, now=now
    )
    off = secret_rotation(SECRET, {}, declared_rotation=True, now=now)

    assert (overdue.status, on_time.status, undeclared.status, off.status) == (
        Status.failed,
        Status.passed,
        Status.warning,
        Status.failed,
    )
    assert "overdue" in overdue.message


@pytest.mark.parametrize(
    "operation",
    [
        "PutObject",
        "DeleteSecret",
        "GetSecretValue",
        "BatchGetSecretValue",
        "AuthorizeSecurityGroupIngress",
        "UpdateNodegroupConfig",
        "Decrypt",
    ],
)
def test_only_read_operations_are_allowed(operation: str) -> None:
    with pytest.raises(ReadOnlyError, match=operation):
        check_read_only(operation)


def test_the_verify_clients_refuse_writes_and_secret_reads_before_sending(boto_session: Any) -> None:
    clients = AwsClients("us-east-1", session=boto_session)

    with pytest.raises(ReadOnlyError):
        clients("secretsmanager").get_secret_value(SecretId="anything")
    with pytest.raises(ReadOnlyError):
        clients("s3").put_object(Bucket="b", Key="k", Body=b"")
    for operation in ("DescribeSecurityGroups", "ListSecrets", "GetBucketPolicy", "HeadObject", "GetObject"):
        check_read_only(operation)
