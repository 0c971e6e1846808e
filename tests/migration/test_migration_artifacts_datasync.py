"""The reverse move: a model served on GKE moving to EKS takes its files along with AWS DataSync, which
reads Cloud Storage through its XML API with an HMAC key of a service account made for the copy.

The expectations are written from the services' documents, not from the program: DataSync's agentless
transfers from other clouds run in Enhanced mode (API reference, CreateTask `TaskMode`) with object
tags off ("Choosing a task mode"); Cloud Storage is `storage.googleapis.com` over HTTPS with an HMAC key
(AWS Storage Blog, "Migrating Google Cloud Storage to Amazon S3 using AWS DataSync"); the role DataSync
writes with and its S3 actions ("Creating an IAM role for DataSync to access your Amazon S3 location");
the read roles of a Cloud Storage source ("Configure access to a source: Cloud Storage"). The requests
are checked against DataSync's own service model (botocore's): a field or value it does not take fails.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from accelplane.clouds.gcp.migration_artifacts import reader_account_id
from accelplane.migration.loader import load_migration
from accelplane.program import migration_offline_graph, offline_graph
from tests.support.botocore_models import invalid
from tests.support.stack_files import stack_text

ACCOUNT = "123456789012"  # AwsLikeMocks' account
READER = "llm-back-files@acme-ml-tpu-prod.iam.gserviceaccount.com"


@pytest.fixture(scope="module")
def reverse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """tpu-prod's llm-server moving back to prod's serve; the files from tpu-prod's llm/ to prod's released/."""
    where = tmp_path_factory.mktemp("reverse")
    for stack in ("prod", "tpu-prod"):
        (where / f"Pulumi.{stack}.yaml").write_text(stack_text(stack))
    text = stack_text("llm-move")
    for old, new in (("source: {stack: prod, service: serve}", "source: {stack: tpu-prod, service: llm-server}"),
                     ("target: {stack: tpu-prod, service: llm-server}", "target: {stack: prod, service: serve}"),
                     ("source_prefix: released/, target_prefix: llm/",
                      "source_prefix: llm/, target_prefix: released/")):
        assert old in text
        text = text.replace(old, new)
    (where / "Pulumi.llm-back.yaml").write_text(text)
    stack = load_migration(where / "Pulumi.llm-back.yaml")
    return stack, migration_offline_graph(stack)


def _api(value: Any) -> Any:
    """Pulumi's camelCase inputs as the DataSync API spells them (PascalCase; tags a list of Key/Value)."""
    if isinstance(value, dict):
        return {key[0].upper() + key[1:]: (
            [{"Key": k, "Value": v} for k, v in item.items()] if key == "tags" else _api(item))
            for key, item in value.items()}
    if isinstance(value, list):
        return [_api(item) for item in value]
    return value


def _invalid(operation: str, params: dict[str, Any]) -> str:
    return invalid("datasync", operation, params)


def test_datasync_reads_cloud_storage_with_a_key_made_for_the_copy_and_writes_the_target_prefix(reverse) -> None:
    stack, graph = reverse
    source_bucket = offline_graph(stack.source).stack_outputs["buckets"]["model_artifacts"]
    prod = offline_graph(stack.target).stack_outputs
    target_bucket, data_key = prod["buckets"]["model_artifacts"], prod["dataKeyArn"]

    # Google side: a service account of the source project, the two read roles on the source bucket, its key.
    [account] = graph.by_type("gcp:serviceaccount/account:Account")
    assert (account.inputs["accountId"], account.inputs["project"]) == ("llm-back-files", "acme-ml-tpu-prod")
    grants = {(g.inputs["bucket"], g.inputs["role"], g.inputs["member"])
              for g in graph.by_type("gcp:storage/bucketIAMMember:BucketIAMMember")}
    assert grants == {(source_bucket, "roles/storage.legacyBucketReader", f"serviceAccount:{READER}"),
                      (source_bucket, "roles/storage.objectViewer", f"serviceAccount:{READER}")}
    [key] = graph.by_type("gcp:storage/hmacKey:HmacKey")
    assert key.inputs == {"serviceAccountEmail": READER, "project": "acme-ml-tpu-prod"}

    # AWS side: the Cloud Storage location, read with the key; the key's secret never shows in the plan.
    [location] = graph.by_type("aws:datasync/locationObjectStorage:LocationObjectStorage")
    assert {k: v for k, v in location.inputs.items() if k != "tags"} == {
        "serverHostname": "storage.googleapis.com", "serverProtocol": "HTTPS", "serverPort": 443,
        "bucketName": source_bucket, "subdirectory": "/llm/", "accessKey": "[secret]", "secretKey": "[secret]"}
    assert "agentArns" not in location.inputs  # agentless: S3 and another cloud's object storage
    assert key.outputs["secret"] not in json.dumps([r.inputs for r in graph.resources])

    [role] = graph.by_type("aws:iam/role:Role")
    assert json.loads(role.inputs["assumeRolePolicy"]) == {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "datasync.amazonaws.com"}, "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT},
                      "ArnLike": {"aws:SourceArn": f"arn:aws:datasync:us-west-2:{ACCOUNT}:*"}}}]}
    assert role.inputs["tags"]["accelplane:environment"] == "prod"  # the target end's tags
    [policy] = graph.by_type("aws:iam/rolePolicy:RolePolicy")
    assert json.loads(policy.inputs["policy"])["Statement"] == [
        {"Effect": "Allow", "Action": ["s3:GetBucketLocation", "s3:ListBucketMultipartUploads"],
         "Resource": f"arn:aws:s3:::{target_bucket}"},
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{target_bucket}",
         "Condition": {"StringLike": {"s3:prefix": ["released/*"]}}},
        {"Effect": "Allow", "Action": ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:GetObject",
                                       "s3:GetObjectTagging", "s3:ListMultipartUploadParts", "s3:PutObject",
                                       "s3:PutObjectTagging"],
         "Resource": f"arn:aws:s3:::{target_bucket}/released/*"},
        # prod's buckets are encrypted with its data key (SSE-KMS): writing needs a data key from it.
        {"Effect": "Allow", "Action": ["kms:Decrypt", "kms:GenerateDataKey"], "Resource": data_key}]
    [sink] = graph.by_type("aws:datasync/s3Location:S3Location")
    assert (sink.inputs["s3BucketArn"], sink.inputs["subdirectory"], sink.inputs["s3Config"]) == (
        f"arn:aws:s3:::{target_bucket}", "/released/",
        {"bucketAccessRoleArn": f"arn:aws:iam::{ACCOUNT}:role/{role.outputs['name']}"})

    [task] = graph.by_type("aws:datasync/task:Task")
    assert task.inputs["taskMode"] == "ENHANCED"
    assert (task.inputs["sourceLocationArn"], task.inputs["destinationLocationArn"]) == (
        location.outputs["arn"], sink.outputs["arn"])
    # Nothing at the target overwritten or deleted; object tags off (Cloud Storage's XML API has none).
    assert task.inputs["options"] == {"objectTags": "NONE", "overwriteMode": "NEVER",
                                      "preserveDeletedFiles": "PRESERVE", "transferMode": "CHANGED",
                                      "verifyMode": "ONLY_FILES_TRANSFERRED"}
    # Once, at 00:00 UTC on copy_on (2026-12-07): AWS cron with a year field.
    assert task.inputs["schedule"] == {"scheduleExpression": "cron(0 0 7 12 ? 2026)"}

    # Each request as DataSync receives it: every field and enum value known to its service model.
    assert _invalid("CreateTask", _api(task.inputs)) == ""
    assert _invalid("CreateLocationS3", _api(sink.inputs)) == ""
    # The secrets are masked in the plan: stand-ins of the key's length (DataSync takes 1 to 200 characters).
    assert _invalid("CreateLocationObjectStorage", _api(location.inputs | {
        "accessKey": "GOOG1E" + "A" * 55, "secretKey": "s" * 40})) == ""


def test_the_service_model_check_catches_an_option_datasync_does_not_take() -> None:
    # Proof the checks above can fail: a misspelt option and a value outside the enum.
    report = _invalid("CreateTask", {"SourceLocationArn": "arn:aws:datasync:us-west-2:1:location/loc-1",
                                     "DestinationLocationArn": "arn:aws:datasync:us-west-2:1:location/loc-2",
                                     "TaskMode": "FAST", "Options": {"ObjectTag": "NONE"}})
    assert 'Unknown parameter in Options: "ObjectTag"' in report
    assert "CreateTask.TaskMode: 'FAST' is not one of ['BASIC', 'ENHANCED']" in report


def test_check_passes_the_reverse_migration(reverse, capsys: pytest.CaptureFixture[str]) -> None:
    # The copy's grants hold the project's own least-privilege rules (AP-S3-007: a listing within the prefix).
    from accelplane.cli import main

    stack, _ = reverse
    assert main(["check", "--stack-file", str(stack.path)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize(("migration", "account_id"), [
    ("llm-back", "llm-back-files"),
    # IAM: 6 to 30 characters, a lowercase letter first, no trailing hyphen.
    ("a-very-long-migration-stack-name", "a-very-long-migration-st-files"),
    ("2026_Move", "m-2026-move-files"),
])
def test_the_readers_service_account_id_is_one_iam_takes(migration: str, account_id: str) -> None:
    assert reader_account_id(migration) == account_id
    assert 6 <= len(account_id) <= 30
