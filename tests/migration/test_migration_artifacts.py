"""The model's files move with the service: the example migration copies prod's model_artifacts bucket
(released/) into tpu-prod's (llm/) with Storage Transfer Service, reading S3 through an AWS role that
trusts the transfer service agent's Google identity.

The expectations are written from the two services' documents, not from the program: the trust policy
Google's "Configure access to a source: Amazon S3" shows (principal accounts.google.com, condition on
`accounts.google.com:sub`), the permissions it lists (s3:ListBucket, s3:GetObject), and the TransferJob as
the Storage Transfer API takes it, checked against storagetransfer v1's discovery document (the schema
google-api-python-client ships): a field the API does not know fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

from accelplane.config.project import find_project
from accelplane.migration.loader import load_migration
from accelplane.program import migration_offline_graph, offline_graph
from tests.migration.test_migration_declaration import problems
from tests.support.google_api_fake import schema
from tools import google_discovery

ARTIFACTS = ("    artifacts: {bucket: model_artifacts, source_prefix: released/, target_prefix: llm/, "
             "copy_on: 2026-12-07}")
# GcpLikeMocks: project number 123456789012; the agent's subject id is the mocks' own 21 digits.
AGENT = "project-123456789012@storage-transfer-service.iam.gserviceaccount.com"
SUBJECT = "100000000123456789012"


def test_the_copy_reads_s3_as_the_transfer_agent_and_writes_the_target_bucket() -> None:
    stack = load_migration(find_project().stack_file("llm-move"))
    graph = migration_offline_graph(stack)
    source_bucket = offline_graph(stack.source).stack_outputs["buckets"]["model_artifacts"]
    target_bucket = offline_graph(stack.target).stack_outputs["buckets"]["model_artifacts"]

    [role] = graph.by_type("aws:iam/role:Role")
    assert json.loads(role.inputs["assumeRolePolicy"]) == {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": "accounts.google.com"},
        "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {"accounts.google.com:sub": SUBJECT}}}]}
    assert role.inputs["tags"]["accelplane:environment"] == "prod"  # the source end's tags
    [policy] = graph.by_type("aws:iam/rolePolicy:RolePolicy")
    assert json.loads(policy.inputs["policy"])["Statement"] == [
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{source_bucket}",
         "Condition": {"StringLike": {"s3:prefix": ["released/*"]}}},
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{source_bucket}/released/*"}]

    [grant] = graph.by_type("gcp:storage/bucketIAMMember:BucketIAMMember")
    assert (grant.inputs["bucket"], grant.inputs["role"], grant.inputs["member"]) == (
        target_bucket, "roles/storage.legacyBucketWriter", f"serviceAccount:{AGENT}")

    [job] = graph.by_type("gcp:storage/transferJob:TransferJob")
    spec = job.inputs["transferSpec"]
    assert spec["awsS3DataSource"] == {"bucketName": source_bucket, "path": "released/",
                                       "roleArn": f"arn:aws:iam::123456789012:role/{role.outputs['name']}"}
    assert spec["gcsDataSink"] == {"bucketName": target_bucket, "path": "llm/"}
    # Once, on copy_on: a schedule that starts and ends the same day.
    day = {"year": 2026, "month": 12, "day": 7}
    assert job.inputs["schedule"] == {"scheduleStartDate": day, "scheduleEndDate": day}
    # The body the Storage Transfer API receives (projectId where pulumi-gcp says project): every field known.
    body = {key: value for key, value in job.inputs.items() if key != "project"} | {"projectId": job.inputs["project"]}
    api = google_discovery.load("storagetransfer", "v1")
    assert schema.errors(api.schemas, "TransferJob", body) == []
    assert job.inputs["project"] == "acme-ml-tpu-prod"


def test_the_schema_check_catches_a_field_storage_transfer_does_not_know() -> None:
    # The same check on a misspelt field: proof the test above can fail.
    api = google_discovery.load("storagetransfer", "v1")
    found = schema.errors(api.schemas, "TransferJob", {"transferSpec": {"awsS3DataSource": {"roleArm": "x"}}})
    assert found == ["$.transferSpec.awsS3DataSource: unknown field 'roleArm'"]


def test_an_end_without_the_bucket_role_is_refused(tmp_path: Path) -> None:
    found = problems(tmp_path, {"llm-move": [(ARTIFACTS, ARTIFACTS.replace("model_artifacts", "model_artefacts"))]})
    messages = [message for field, _, message in found if field == "accelplane:migration.artifacts.bucket"]
    assert messages == ["stack 'prod' (source) has no bucket of role 'model_artefacts'; did you mean model_artifacts? "
                        "(its buckets: datasets, checkpoints, logs, model_artifacts)",
                        "stack 'tpu-prod' (target) has no bucket of role 'model_artefacts'; did you mean "
                        "model_artifacts? (its buckets: datasets, checkpoints, model_artifacts, logs)"]


def test_between_two_eks_ends_the_copy_is_refused_naming_the_directions_built(tmp_path: Path) -> None:
    # prod's serve moving to the same service in another account's stack: S3 to S3 is no migration copy here.
    from tests.support.stack_files import stack_text

    (tmp_path / "Pulumi.prod-west.yaml").write_text(stack_text("prod").replace("acme-ml", "acme-west"))
    found = problems(tmp_path, {"llm-move": [("target: {stack: tpu-prod, service: llm-server}",
                                              "target: {stack: prod-west, service: serve}")]})
    said = [(field, message) for field, _, message in found]
    assert ("accelplane:migration.artifacts", "copying a model's files from aws to aws is not built yet (built: gcp → "
            "aws, AWS DataSync; aws → gcp, Storage Transfer Service; gcp → gcp, Storage Transfer Service); copy them "
            "with the target cloud's own tool and leave artifacts out") in said


def test_between_two_gke_ends_the_transfer_reads_cloud_storage_with_the_agents_own_grants(tmp_path: Path) -> None:
    # tpu-prod's llm-server moving to the same service in another project, the files copied between their
    # model_artifacts buckets (Cloud DNS holds the name: two addresses).
    from tests.migration.test_migrate_cloud_dns import ACM_VALIDATION, ZONE
    from tests.support.stack_files import stack_text

    (tmp_path / "Pulumi.tpu-prod.yaml").write_text(stack_text("tpu-prod"))
    (tmp_path / "Pulumi.tpu-west.yaml").write_text(stack_text("tpu-prod").replace("acme-ml-tpu-prod",
                                                                                  "acme-ml-tpu-west"))
    text = stack_text("llm-move")
    for old, new in (("source: {stack: prod, service: serve}", "source: {stack: tpu-prod, service: llm-server}"),
                     ("target: {stack: tpu-prod, service: llm-server}",
                      "target: {stack: tpu-west, service: llm-server}"),
                     ("dns: {service: route53, zone: Z0123456789ABCDEFGHIJ}",
                      f"dns: {{service: cloud-dns, zone: {ZONE}}}"),
                     ("source_prefix: released/", "source_prefix: llm/"), (ACM_VALIDATION, "")):
        text = text.replace(old, new)
    (tmp_path / "Pulumi.gke-move.yaml").write_text(text)
    stack = load_migration(tmp_path / "Pulumi.gke-move.yaml")
    graph = migration_offline_graph(stack)
    source_bucket = offline_graph(stack.source).stack_outputs["buckets"]["model_artifacts"]
    # Cloud Storage source ("Configure access to a source: Cloud Storage"): buckets.get, objects.get and
    # objects.list for the agent, on the source bucket; no AWS role.
    grants = {(g.inputs["bucket"], g.inputs["role"], g.inputs["member"])
              for g in graph.by_type("gcp:storage/bucketIAMMember:BucketIAMMember")}
    assert {(source_bucket, "roles/storage.legacyBucketReader", f"serviceAccount:{AGENT}"),
            (source_bucket, "roles/storage.objectViewer", f"serviceAccount:{AGENT}")} <= grants
    assert not graph.by_type("aws:iam/role:Role")
    [job] = graph.by_type("gcp:storage/transferJob:TransferJob")
    assert job.inputs["transferSpec"]["gcsDataSource"] == {"bucketName": source_bucket, "path": "llm/"}
    assert "awsS3DataSource" not in job.inputs["transferSpec"]
    body = {key: value for key, value in job.inputs.items() if key != "project"} | {"projectId": job.inputs["project"]}
    assert schema.errors(google_discovery.load("storagetransfer", "v1").schemas, "TransferJob", body) == []
    assert job.inputs["project"] == "acme-ml-tpu-west"
