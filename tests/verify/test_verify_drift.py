"""`verify` against the dev platform created in moto: clean passes, each drift is reported precisely.

Each test introduces one change the way an operator would (a boto3 call on the live platform) and
asserts the check id, the resource and the property path of what is reported, and the policy rule
the change breaks where one does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse

from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.verify.live_view import VERIFIED_TYPES
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.results import CheckId, Status, VerifyReport
from tests.verify.conftest import failures
from tests.verify.moto_platform import MotoPlatform

INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"


def results(report: VerifyReport, check: str, name: str | None = None) -> list[Any]:
    return [r for r in report.results if r.check == check and (name is None or r.name == name)]


def only_failures(report: VerifyReport) -> set[tuple[str, str, str | None]]:
    return set(failures(report))


def test_the_declared_platform_as_created_verifies_clean(
    live_dev: MotoPlatform, run_verify: Any, dev_declared: DeclaredPlatform
) -> None:
    report = run_verify()

    assert failures(report) == []
    assert not report.failed
    verified = {r.name for r in dev_declared.resources if r.type in VERIFIED_TYPES}
    matched = {r.name for r in results(report, CheckId.drift_matched)}
    assert matched == verified, f"not matched: {sorted(verified - matched)}"
    passed = {r.check for r in report.results if r.status is Status.passed}
    assert {
        CheckId.node_group_status,
        CheckId.target_health,
        CheckId.kms_key_state,
        CheckId.secret_value,
        CheckId.checkpoint_present,
        CheckId.checkpoint_integrity,
        CheckId.rules,
    } <= passed


def test_extra_ingress_rule_is_drift_and_breaks_the_ssh_rule(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("ec2").authorize_security_group_ingress(
        GroupId=live_dev.group_id("lb"),
        IpPermissions=[{"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}],
    )

    report = run_verify()

    [unexpected] = results(report, CheckId.drift_unexpected)
    assert unexpected.type == INGRESS
    assert unexpected.status is Status.failed
    assert "a rule of acme-ml-dev-sg-lb" in unexpected.message
    assert "ingress tcp ports 22-22 from 0.0.0.0/0" in unexpected.message
    [ssh] = results(report, "AP-NET-002")
    assert ssh.name == unexpected.name and ssh.status is Status.failed
    assert report.failed


def test_extra_rule_on_the_emptied_default_group_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    ec2 = live_dev.client("ec2")
    default = live_dev.live_id["acme-ml-dev-network-default-sg"]
    ec2.authorize_security_group_ingress(
        GroupId=default, IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": default}]}]
    )

    report = run_verify()

    [unexpected] = results(report, CheckId.drift_unexpected)
    assert "a rule of acme-ml-dev-network-default-sg" in unexpected.message


def test_encryption_changed_to_sse_s3_is_drift_and_breaks_the_kms_rule(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("s3").put_bucket_encryption(
        Bucket=live_dev.bucket("datasets"),
        ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
        },
    )

    report = run_verify()

    [changed] = results(report, CheckId.drift_changed)
    assert (changed.name, changed.path) == ("acme-ml-dev-datasets-encryption", "rules")
    assert changed.expected[0]["applyServerSideEncryptionByDefault"] == {
        "sseAlgorithm": "aws:kms",
        "kmsMasterKeyId": "<acme-ml-dev-data-key>",
    }
    assert changed.actual[0]["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "AES256"}
    [rule] = results(report, "AP-S3-003")
    assert rule.name == "acme-ml-dev-datasets-bucket" and "AES256" in rule.message


def test_encryption_configuration_deleted_is_reported_missing(live_dev: MotoPlatform, run_verify: Any) -> None:
    # AWS falls back to SSE-S3 (previous test); moto reports no configuration at all.
    live_dev.client("s3").delete_bucket_encryption(Bucket=live_dev.bucket("checkpoints"))

    report = run_verify()

    assert (CheckId.drift_missing, "acme-ml-dev-checkpoints-encryption", None) in only_failures(report)
    assert [r.name for r in results(report, "AP-S3-003")] == ["acme-ml-dev-checkpoints-bucket"]


def test_public_access_block_off_is_drift_on_each_flag(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("s3").put_public_access_block(
        Bucket=live_dev.bucket("datasets"),
        PublicAccessBlockConfiguration={
            "BlockPublicAcls": False,
            "IgnorePublicAcls": False,
            "BlockPublicPolicy": False,
            "RestrictPublicBuckets": False,
        },
    )

    report = run_verify()

    changed = {
        (r.path, r.expected, r.actual)
        for r in results(report, CheckId.drift_changed, "acme-ml-dev-datasets-public-access")
    }
    assert changed == {
        (flag, True, False)
        for flag in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    }
    assert results(report, "AP-S3-001")


def test_node_group_scaled_outside_the_code_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("eks").update_nodegroup_config(
        clusterName="acme-ml-dev", nodegroupName="system", scalingConfig={"minSize": 2, "maxSize": 6, "desiredSize": 5}
    )

    report = run_verify()

    [changed] = results(report, CheckId.drift_changed)
    assert (changed.name, changed.path, changed.expected, changed.actual) == (
        "acme-ml-dev-system-ng",
        "scalingConfig.maxSize",
        3,
        6,
    )


def test_desired_size_belongs_to_the_autoscaler(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("eks").update_nodegroup_config(
        clusterName="acme-ml-dev", nodegroupName="system", scalingConfig={"minSize": 2, "maxSize": 3, "desiredSize": 3}
    )

    assert failures(run_verify()) == []


def test_node_group_created_by_hand_is_unexpected(live_dev: MotoPlatform, run_verify: Any) -> None:
    eks = live_dev.client("eks")
    system = eks.describe_nodegroup(clusterName="acme-ml-dev", nodegroupName="system")["nodegroup"]
    eks.create_nodegroup(
        clusterName="acme-ml-dev",
        nodegroupName="handmade",
        nodeRole=system["nodeRole"],
        subnets=system["subnets"],
        scalingConfig={"minSize": 1, "maxSize": 1, "desiredSize": 1},
    )

    report = run_verify()

    [unexpected] = results(report, CheckId.drift_unexpected)
    assert unexpected.type == "aws:eks/nodeGroup:NodeGroup" and unexpected.name == "acme-ml-dev:handmade"


@pytest.mark.parametrize("force", [False, True], ids=["scheduled-for-deletion", "deleted"])
def test_deleted_secret_is_reported_missing(live_dev: MotoPlatform, run_verify: Any, force: bool) -> None:
    secrets = live_dev.client("secretsmanager")
    arn = live_dev.secret_arn("hf-token")
    if force:
        secrets.delete_secret(SecretId=arn, ForceDeleteWithoutRecovery=True)
    else:
        secrets.delete_secret(SecretId=arn, RecoveryWindowInDays=7)

    report = run_verify()

    [missing] = results(report, CheckId.drift_missing, "acme-ml-dev-secrets-hf-token")
    assert missing.status is Status.failed
    assert ("scheduled for deletion" in missing.message) is not force
    assert results(report, CheckId.drift_missing, "acme-ml-dev-secret-access-hf-token")


def test_secret_without_a_value_fails_without_reading_any(
    moto: None, dev_declared: DeclaredPlatform, boto_session: Any, run_verify: Any
) -> None:
    platform = MotoPlatform(dev_declared, session=boto_session, secret_values=False).create()
    platform.register_targets()

    report = run_verify(checkpoint_drill="off")

    [value] = results(report, CheckId.secret_value)
    assert value.status is Status.failed and value.name == "acme-ml-dev-secrets-hf-token"
    assert not any("GetSecretValue" in op for op in report.api_calls["by_operation"])


def test_key_rotation_off_is_drift_and_breaks_the_rotation_rule(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("kms").disable_key_rotation(KeyId=live_dev.key_id("data"))

    report = run_verify()

    [changed] = results(report, CheckId.drift_changed)
    assert (changed.name, changed.path, changed.expected, changed.actual) == (
        "acme-ml-dev-data-key",
        "enableKeyRotation",
        True,
        False,
    )
    assert [r.name for r in results(report, "AP-KMS-001")] == ["acme-ml-dev-data-key"]


def test_key_scheduled_for_deletion_fails_the_key_state(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("kms").schedule_key_deletion(KeyId=live_dev.key_id("secrets"), PendingWindowInDays=7)

    report = run_verify()

    [state] = results(report, CheckId.kms_key_state, "acme-ml-dev-secrets-key")
    assert state.status is Status.failed and "PendingDeletion" in state.message


def test_extra_inline_policy_and_admin_attachment_are_unexpected(live_dev: MotoPlatform, run_verify: Any) -> None:
    iam = live_dev.client("iam")
    role = live_dev.live_id["acme-ml-dev-node-role"]
    iam.put_role_policy(
        RoleName=role,
        PolicyName="debug",
        PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
        ),
    )
    from tests.verify.moto_platform import load_aws_managed_policy

    load_aws_managed_policy("arn:aws:iam::aws:policy/AdministratorAccess")
    iam.attach_role_policy(RoleName=role, PolicyArn="arn:aws:iam::aws:policy/AdministratorAccess")

    report = run_verify()

    unexpected = {(r.type, r.name) for r in results(report, CheckId.drift_unexpected)}
    assert unexpected == {
        ("aws:iam/rolePolicy:RolePolicy", f"{role}:debug"),
        ("aws:iam/rolePolicyAttachment:RolePolicyAttachment", f"{role}/arn:aws:iam::aws:policy/AdministratorAccess"),
    }
    broken = {r.check for r in report.results if r.status is Status.failed and r.check.startswith("AP-IAM")}
    assert "AP-IAM-001" in broken  # wildcard action


def test_widened_trust_policy_is_drift_and_breaks_the_one_service_account_rule(
    live_dev: MotoPlatform, run_verify: Any
) -> None:
    iam = live_dev.client("iam")
    role = live_dev.live_id["acme-ml-dev-trainer-role"]
    trust = iam.get_role(RoleName=role)["Role"]["AssumeRolePolicyDocument"]
    condition = trust["Statement"][0]["Condition"]
    condition["StringLike"] = {
        k: "system:serviceaccount:*" for k in condition.pop("StringEquals") if k.endswith(":sub")
    }
    iam.update_assume_role_policy(RoleName=role, PolicyDocument=json.dumps(trust))

    report = run_verify()

    [changed] = results(report, CheckId.drift_changed, "acme-ml-dev-trainer-role")
    assert changed.path == "assumeRolePolicy"
    assert "<acme-ml-dev-eks-cluster.oidcIssuer>:sub" in json.dumps(changed.actual)
    assert results(report, "AP-IAM-006", "acme-ml-dev-trainer-role")


def test_weakened_tls_policy_is_drift(live_dev: MotoPlatform, run_verify: Any) -> None:
    elb = live_dev.client("elbv2")
    https = live_dev.live_id["acme-ml-dev-inference-https"]
    elb.modify_listener(ListenerArn=https, SslPolicy="ELBSecurityPolicy-2016-08")

    report = run_verify()

    [changed] = results(report, CheckId.drift_changed, "acme-ml-dev-inference-https")
    assert (changed.path, changed.expected, changed.actual) == (
        "sslPolicy",
        "ELBSecurityPolicy-TLS13-1-2-2021-06",
        "ELBSecurityPolicy-2016-08",
    )
    assert results(report, "AP-LB-001") or results(report, "AP-LB-002") or results(report, "AP-LB-003")


def test_new_launch_template_version_not_rolled_out_warns(live_dev: MotoPlatform, run_verify: Any) -> None:
    template = live_dev.live_id["acme-ml-dev-system-lt"]
    live_dev.client("ec2").create_launch_template_version(
        LaunchTemplateId=template,
        SourceVersion="1",
        LaunchTemplateData={"MetadataOptions": {"HttpTokens": "optional", "HttpPutResponseHopLimit": 2}},
    )

    report = run_verify()

    [version] = results(report, CheckId.launch_template_version, "acme-ml-dev-system-ng")
    assert version.status is Status.warning and "latest is 2" in version.message
    # The node group still runs version 1, which is as declared: no drift on the template it runs.
    assert failures(report) == []


def test_no_registered_targets_fails_target_health(live_dev: MotoPlatform, run_verify: Any) -> None:
    elb = live_dev.client("elbv2")
    group = live_dev.target_group("server", "server")
    registered = elb.describe_target_health(TargetGroupArn=group)["TargetHealthDescriptions"]
    elb.deregister_targets(TargetGroupArn=group, Targets=[d["Target"] for d in registered])

    report = run_verify()

    [health] = results(report, CheckId.target_health)
    assert health.status is Status.failed and "no targets registered" in health.message


# -- what moto cannot emulate: injected as AWS would answer, through botocore's own parser ---------------

_UNHEALTHY_XML = b"""<DescribeTargetHealthResponse xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/">
  <DescribeTargetHealthResult>
    <TargetHealthDescriptions>
      <member>
        <HealthCheckPort>traffic-port</HealthCheckPort>
        <Target><Id>10.40.0.10</Id><Port>8000</Port></Target>
        <TargetHealth><State>healthy</State></TargetHealth>
      </member>
      <member>
        <HealthCheckPort>traffic-port</HealthCheckPort>
        <Target><Id>10.40.0.11</Id><Port>8000</Port></Target>
        <TargetHealth>
          <State>unhealthy</State>
          <Reason>Target.ResponseCodeMismatch</Reason>
          <Description>Health checks failed with these codes: [503]</Description>
        </TargetHealth>
      </member>
    </TargetHealthDescriptions>
  </DescribeTargetHealthResult>
  <ResponseMetadata><RequestId>5d2d6e6e-0000-4b4b-9c9c-0123456789ab</RequestId></ResponseMetadata>
</DescribeTargetHealthResponse>"""

_THROTTLED_XML = b"""<ErrorResponse xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/">
  <Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error>
  <RequestId>5d2d6e6e-0000-4b4b-9c9c-0123456789ac</RequestId>
</ErrorResponse>"""


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Any:
        yield self.body


def _answer(
    clients: AwsClients, service: str, event_service: str, operation: str, answers: list[tuple[int, bytes]]
) -> None:
    """Answer the next calls of one operation with canned HTTP responses, ahead of moto."""

    def send(request: Any, **_: Any) -> AWSResponse | None:
        if not answers:
            return None
        status, body = answers.pop(0)
        return AWSResponse(request.url, status, {"Content-Type": "text/xml"}, _Raw(body))

    clients(service).meta.events.register_first(f"before-send.{event_service}.{operation}", send)


def test_unhealthy_targets_fail_with_reason(live_dev: MotoPlatform, run_verify: Any, boto_session: Any) -> None:
    group = live_dev.target_group_resource("server", "server").name
    clients = AwsClients("us-east-1", session=boto_session)
    _answer(clients, "elbv2", "elastic-load-balancing-v2", "DescribeTargetHealth", [(200, _UNHEALTHY_XML)])

    report = run_verify(clients=clients)

    [health] = results(report, CheckId.target_health)
    assert health.status is Status.failed and health.name == group
    assert "1 healthy, 1 unhealthy" in health.message
    assert "10.40.0.11:8000 unhealthy (Target.ResponseCodeMismatch: Health checks failed" in health.message


class _HourlyClock:
    """botocore's token-bucket clock, an hour later at every reading: the bucket is always refilled."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def current_time(self) -> float:
        self.now += 3600.0
        return self.now

    def sleep(self, amount: float) -> None:
        self.now += amount


def test_throttling_is_retried_and_counted(
    live_dev: MotoPlatform, run_verify: Any, boto_session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore backs off before the retry, and its adaptive rate limiter then meters the calls by a clock:
    # the backoff is asked for, never spent, and the limiter reads a clock an hour on at every reading
    # (no wall clock in tests).
    backoffs: list[float] = []
    monkeypatch.setattr("botocore.endpoint.time.sleep", backoffs.append)
    monkeypatch.setattr("botocore.retries.adaptive.bucket.Clock", _HourlyClock)
    clients = AwsClients("us-east-1", session=boto_session)
    _answer(clients, "elbv2", "elastic-load-balancing-v2", "DescribeTargetHealth", [(400, _THROTTLED_XML)])

    report = run_verify(clients=clients)

    assert len(backoffs) == 1 and 0 < backoffs[0] <= 20  # botocore's cap on one backoff is 20 s
    assert failures(report) == []
    assert report.api_calls["retries"] == 1
    assert report.api_calls["by_operation"]["elbv2.DescribeTargetHealth"] == 1


def test_access_denied_is_not_verified_never_passed_or_missing(
    live_dev: MotoPlatform, run_verify: Any, boto_session: Any
) -> None:
    clients = AwsClients("us-east-1", session=boto_session)
    denied = (
        b"<Error><Code>AccessDenied</Code><Message>not authorized to perform s3:GetBucketPolicy</Message>"
        b"<RequestId>1</RequestId></Error>"
    )
    _answer(clients, "s3", "s3", "GetBucketPolicy", [(403, denied), (403, denied)])

    report = run_verify(clients=clients)

    failed = only_failures(report)
    assert (CheckId.read_error, "acme-ml-dev-datasets-policy", None) in failed
    assert (CheckId.read_error, "acme-ml-dev-checkpoints-policy", None) in failed
    assert not results(report, CheckId.drift_missing)
    assert any(
        "s3.GetBucketPolicy" in r.message and "AccessDenied" in r.message for r in results(report, CheckId.read_error)
    )


def test_api_calls_are_list_calls_where_a_list_call_answers(live_dev: MotoPlatform, run_verify: Any) -> None:
    calls = run_verify()
    by_operation = calls.api_calls["by_operation"]

    # Two calls each, whatever the number of groups: the platform's (by tag), then the groups its
    # resources attach that carry no tag (the EKS cluster security group), by id.
    for operation in ("ec2.DescribeSecurityGroups", "ec2.DescribeSecurityGroupRules"):
        assert by_operation[operation] == 2, operation
    # One call each, whatever the number of resources:
    for operation in (
        "ec2.DescribeLaunchTemplateVersions",
        "iam.GetAccountAuthorizationDetails",
        "secretsmanager.ListSecrets",
        "resourcegroupstaggingapi.GetResources",
    ):
        assert by_operation[operation] == 1, operation
    # Never per resource what a list call already answered:
    for operation in (
        "iam.GetRole",
        "iam.ListRolePolicies",
        "iam.GetRolePolicy",
        "iam.ListAttachedRolePolicies",
        "s3.GetBucketTagging",
        "kms.ListResourceTags",
        "secretsmanager.DescribeSecret",
        "ec2.DescribeSecurityGroupsRules",
    ):
        assert operation not in by_operation, operation
    assert by_operation["eks.DescribeNodegroup"] == 3  # no batch API exists
    assert calls.api_calls["total"] == sum(by_operation.values())
