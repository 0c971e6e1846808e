"""Fixtures of the audit-trail rules (issue 49), in the wire format the engines send: a CloudTrail trail
as CreateTrail and PutEventSelectors take it (advanced event selectors: eventCategory, resources.type,
resources.ARN), S3 Object Lock's default retention, and Google Cloud's project audit configs
(auditLogConfigs logType), log bucket (locked) and sink (filter, destination)."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as aws_types
from accelplane.clouds.gcp import resource_types as gcp_types
from tests.rules.cases import PROD_TAGS, Case, cluster, res
from tests.rules.gcp_cases import gke_cluster

MODEL_BUCKET = "arn:aws:s3:::acme-model-artifacts-1"
CHECKPOINT_BUCKET = "arn:aws:s3:::acme-checkpoints-1"


def eks() -> Any:
    return res(aws_types.EKS_CLUSTER, "c", {**cluster(), "tags": PROD_TAGS})


def bucket(name: str, role: str, arn: str, **options: Any) -> Any:
    return res(aws_types.S3_BUCKET, name, {"tags": {**PROD_TAGS, "accelplane.io/bucket-role": role}},
               outputs={"arn": arn, "bucket": arn.removeprefix("arn:aws:s3:::")}, **options)


def trail(*data_prefixes: str, **props: Any) -> Any:
    management = {"field": "eventCategory", "equals": ["Management"]}
    selectors = [{"name": "Management events", "fieldSelectors": [management]}]
    if data_prefixes:
        selectors.append({"name": "Model and checkpoint objects", "fieldSelectors": [
            {"field": "eventCategory", "equals": ["Data"]}, {"field": "resources.type", "equals": ["AWS::S3::Object"]},
            {"field": "resources.ARN", "startsWiths": list(data_prefixes)}]})
    return res(aws_types.CLOUDTRAIL_TRAIL, "audit-trail", {
        "name": "acme-audit", "s3BucketName": "acme-audit-1", "isMultiRegionTrail": True,
        "includeGlobalServiceEvents": True, "enableLogFileValidation": True, "enableLogging": True,
        "kmsKeyId": "arn:aws:kms:us-west-2:123456789012:key/k", "advancedEventSelectors": selectors,
        "tags": PROD_TAGS, **props})


def object_lock(mode: str) -> Any:
    return res("aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration", "audit-lock", {
        "bucket": "acme-audit-1", "objectLockEnabled": "Enabled",
        "rule": {"defaultRetention": {"mode": mode, "days": 365}}})


def audit_config(service: str, *log_types: str) -> Any:
    return res(gcp_types.GCP_AUDIT_CONFIG, f"audit-{service.split('.')[0]}", {
        "project": "acme", "service": service, "auditLogConfigs": [{"logType": kind} for kind in log_types]})


ALL_KINDS = ("ADMIN_READ", "DATA_READ", "DATA_WRITE")
LOG_BUCKET = res(gcp_types.GCP_LOG_BUCKET, "audit-bucket", {
    "project": "acme", "location": "us-central1", "bucketId": "acme-audit", "retentionDays": 365, "locked": True})
SINK = res(gcp_types.GCP_LOG_SINK, "audit-sink", {
    "project": "acme", "name": "acme-audit", "filter": 'logName:"cloudaudit.googleapis.com"',
    "destination": "logging.googleapis.com/projects/acme/locations/us-central1/buckets/acme-audit"})


def gke() -> Any:
    cluster_ = gke_cluster()
    return res(cluster_.type, cluster_.name, {**cluster_.props, "resourceLabels": {"accelplane-environment": "prod"}})


STACK_BUCKETS = [bucket("model", "model_artifacts", MODEL_BUCKET), bucket("ckpt", "checkpoints", CHECKPOINT_BUCKET)]

AUDIT_CASES: dict[str, Case] = {
    # A trail that validates its files and records management events, but not the checkpoints' objects.
    "AP-AUD-001": Case(
        passing=[eks(), *STACK_BUCKETS, trail(f"{MODEL_BUCKET}/", f"{CHECKPOINT_BUCKET}/")],
        failing=[eks(), *STACK_BUCKETS, trail(f"{MODEL_BUCKET}/", enableLogFileValidation=False)],
        expect="log file validation is off (a deleted or edited log file would not show); it records no object reads "
               "and writes of the checkpoints bucket", target="audit-trail", environment="prod"),
    "AP-AUD-002": Case(
        passing=[bucket("audit", "audit", "arn:aws:s3:::acme-audit-1", id="acme-audit-1"), object_lock("COMPLIANCE"),
                 trail()],
        failing=[bucket("audit", "audit", "arn:aws:s3:::acme-audit-1", id="acme-audit-1"), object_lock("GOVERNANCE"),
                 trail()],
        expect="has default retention in GOVERNANCE mode", target="audit-trail"),
    "AP-GAUD-001": Case(
        passing=[gke(), audit_config("storage.googleapis.com", *ALL_KINDS),
                 audit_config("cloudkms.googleapis.com", *ALL_KINDS),
                 audit_config("secretmanager.googleapis.com", *ALL_KINDS), LOG_BUCKET, SINK],
        failing=[gke(), audit_config("storage.googleapis.com", "ADMIN_READ"),
                 audit_config("cloudkms.googleapis.com", *ALL_KINDS),
                 audit_config("secretmanager.googleapis.com", *ALL_KINDS),
                 res(LOG_BUCKET.type, LOG_BUCKET.name, {**LOG_BUCKET.props, "locked": False}), SINK],
        expect="Data Access audit logs of storage.googleapis.com are off (DATA_READ, DATA_WRITE)", target="gke",
        environment="prod"),
}
