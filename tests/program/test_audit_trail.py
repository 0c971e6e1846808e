"""Who changed what (issue 49): prod's CloudTrail trail and tpu-prod's Data Access audit logs, built from
`audit:`, kept where nobody in the platform can delete them.

Expectations are written from the services' documents: CloudTrail's CreateTrail and PutEventSelectors
(advanced event selectors: `eventCategory` Management / Data, `resources.type` AWS::S3::Object,
`resources.ARN` StartsWith), the KMS key policy and S3 bucket policy CloudTrail needs ("Configure AWS
KMS key policies for CloudTrail", "Amazon S3 bucket policy for CloudTrail": `aws:SourceArn` the trail,
writes under AWSLogs/<account>/ with bucket-owner-full-control), S3 Object Lock's default retention
(COMPLIANCE); Google's audit configs (ADMIN_READ, DATA_READ, DATA_WRITE per service), a locked log
bucket and a sink of `cloudaudit.googleapis.com` logs. The AWS requests are checked against botocore's
service models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accelplane.engine.graph import OfflineGraph
from tests.support.botocore_models import invalid
from tests.support.cli_process import run_accelplane
from tests.support.stack_files import write_variant

ACCOUNT = "123456789012"  # the mocks' account
TRAIL_ARN = f"arn:aws:cloudtrail:us-west-2:{ACCOUNT}:trail/acme-ml-audit"
READER = "arn:aws:iam::444455556666:role/security-audit"


def _statements(resource: Any) -> dict[str, dict[str, Any]]:
    return {s["Sid"]: s for s in json.loads(resource.inputs["policy"])["Statement"]}


def test_the_trail_records_every_region_s_management_events_and_the_model_and_checkpoint_objects(
        prod_graph: OfflineGraph) -> None:
    trail = prod_graph.named("acme-ml-audit-trail").inputs
    buckets = prod_graph.stack_outputs["buckets"]
    assert {k: trail[k] for k in ("name", "isMultiRegionTrail", "includeGlobalServiceEvents",
                                  "enableLogFileValidation", "enableLogging")} == {
        "name": "acme-ml-audit", "isMultiRegionTrail": True, "includeGlobalServiceEvents": True,
        "enableLogFileValidation": True, "enableLogging": True}
    assert trail["advancedEventSelectors"] == [
        {"name": "Management events", "fieldSelectors": [{"field": "eventCategory", "equals": ["Management"]}]},
        {"name": "Model and checkpoint objects", "fieldSelectors": [
            {"field": "eventCategory", "equals": ["Data"]},
            {"field": "resources.type", "equals": ["AWS::S3::Object"]},
            {"field": "resources.ARN", "startsWiths": [f"arn:aws:s3:::{buckets['model_artifacts']}/",
                                                      f"arn:aws:s3:::{buckets['checkpoints']}/"]}]},
    ]
    key = prod_graph.named("acme-ml-audit-logs-key")
    assert trail["kmsKeyId"] == key.outputs["arn"]
    assert not invalid("cloudtrail", "CreateTrail", {
        "Name": trail["name"], "S3BucketName": trail["s3BucketName"], "KmsKeyId": trail["kmsKeyId"],
        "IsMultiRegionTrail": True, "IncludeGlobalServiceEvents": True, "EnableLogFileValidation": True})
    selectors = [{"Name": s["name"], "FieldSelectors": [
        {"Field": f["field"], **({"Equals": f["equals"]} if "equals" in f else {}),
         **({"StartsWith": f["startsWiths"]} if "startsWiths" in f else {})} for f in s["fieldSelectors"]]}
        for s in trail["advancedEventSelectors"]]
    assert not invalid("cloudtrail", "PutEventSelectors", {"TrailName": "acme-ml-audit",
                                                            "AdvancedEventSelectors": selectors})


def test_only_this_trail_may_encrypt_with_the_key_and_write_the_bucket(prod_graph: OfflineGraph) -> None:
    key = _statements(prod_graph.named("acme-ml-audit-logs-key"))
    encrypt = key["CloudTrailEncryptsThisTrailsLogs"]
    assert encrypt["Principal"] == {"Service": "cloudtrail.amazonaws.com"}
    assert encrypt["Action"] == "kms:GenerateDataKey*"
    assert encrypt["Condition"] == {
        "StringEquals": {"aws:SourceArn": TRAIL_ARN},
        "StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": f"arn:aws:cloudtrail:*:{ACCOUNT}:trail/*"}}
    bucket = prod_graph.named("acme-ml-audit-bucket")
    arn = bucket.outputs["arn"]
    policy = _statements(prod_graph.named("acme-ml-audit-policy"))
    write = policy["CloudTrailWritesThisTrailsLogs"]
    assert write["Resource"] == f"{arn}/AWSLogs/{ACCOUNT}/*" and write["Action"] == "s3:PutObject"
    assert write["Condition"] == {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control",
                                                   "aws:SourceArn": TRAIL_ARN}}
    assert policy["CloudTrailChecksTheBucket"]["Condition"] == {"StringEquals": {"aws:SourceArn": TRAIL_ARN}}
    # Nobody but the declared reader opens a log file, whatever IAM grants.
    deny = policy["OnlyTheReadersReadTheLogs"]
    assert (deny["Effect"], deny["Principal"], deny["Resource"]) == ("Deny", "*", f"{arn}/*")
    assert deny["Condition"] == {"ArnNotEquals": {"aws:PrincipalArn": [READER]}}


def test_log_files_are_under_compliance_object_lock_for_the_retention(prod_graph: OfflineGraph) -> None:
    assert prod_graph.named("acme-ml-audit-bucket").inputs["objectLockEnabled"] is True
    lock = prod_graph.named("acme-ml-audit-object-lock").inputs
    assert lock["rule"] == {"defaultRetention": {"mode": "COMPLIANCE", "days": 365}}
    assert not invalid("s3", "PutObjectLockConfiguration", {"Bucket": "b", "ObjectLockConfiguration": {
        "ObjectLockEnabled": lock["objectLockEnabled"],
        "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Days": 365}}}})
    [rule] = prod_graph.named("acme-ml-audit-lifecycle").inputs["rules"]
    assert rule["expiration"] == {"days": 365}  # kept for the retention, not forever


def test_a_prod_stack_without_an_audit_trail_fails_check(tmp_path: Path) -> None:
    block = ("    audit:\n      retention_days: 365\n      readers: [arn:aws:iam::444455556666:role/security-audit]\n")
    path, _ = write_variant(tmp_path, block, "", "prod")
    result = run_accelplane(["check", "--stack-file", path, "--format", "json"])
    assert result.returncode == 1
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "AP-AUD-001"]
    assert finding["message"].startswith("prod stack without a CloudTrail trail")


@pytest.fixture(scope="module")
def tpu_prod(tpu_prod_graph: OfflineGraph) -> OfflineGraph:
    return tpu_prod_graph  # built once per test process (tests/conftest.py)


def test_data_access_audit_logs_of_storage_kms_and_secrets_kept_in_a_locked_bucket(tpu_prod: OfflineGraph) -> None:
    configs = {r.inputs["service"]: r.inputs for r in tpu_prod.by_type("gcp:projects/iAMAuditConfig:IAMAuditConfig")}
    assert set(configs) == {"storage.googleapis.com", "cloudkms.googleapis.com", "secretmanager.googleapis.com"}
    for config in configs.values():
        assert config["project"] == "acme-ml-tpu-prod"
        assert config["auditLogConfigs"] == [{"logType": "ADMIN_READ"}, {"logType": "DATA_READ"},
                                             {"logType": "DATA_WRITE"}]
    [bucket] = tpu_prod.by_type("gcp:logging/projectBucketConfig:ProjectBucketConfig")
    assert {k: bucket.inputs[k] for k in ("project", "location", "bucketId", "retentionDays", "locked")} == {
        "project": "acme-ml-tpu-prod", "location": "us-central1", "bucketId": "acme-tpu-audit",
        "retentionDays": 365, "locked": True}
    [sink] = tpu_prod.by_type("gcp:logging/projectSink:ProjectSink")
    assert sink.inputs["filter"] == 'logName:"cloudaudit.googleapis.com"'
    assert sink.inputs["destination"] == ("logging.googleapis.com/projects/acme-ml-tpu-prod/locations/us-central1/"
                                          "buckets/acme-tpu-audit")
