"""Google Cloud's part in moving a model's files between clouds: Storage Transfer Service copying from
another cloud's object store into the target end's Cloud Storage bucket (entry point
`accelplane.artifact_sinks`, `gcp`).

Facts (read 2026-12-07):
- The transfer runs as the project's Storage Transfer service agent,
  `project-NUMBER@storage-transfer-service.iam.gserviceaccount.com` (`googleServiceAccounts.get`, pulumi-gcp
  `storage.getTransferProjectServiceAccount`, which also gives its `subjectId`); it reads S3 through an
  AWS role trusting `accounts.google.com` for that subject (`transferSpec.awsS3DataSource.roleArn`;
  "Configure access to a source: Amazon S3").
- On the sink bucket it needs storage.buckets.get, storage.objects.create, storage.objects.delete and
  storage.objects.list ("Configure access to a sink: Cloud Storage",
  cloud.google.com/storage-transfer/docs/sink-cloud-storage): Storage Legacy Bucket Writer
  (roles/storage.legacyBucketWriter) holds them, on that one bucket.
- A job whose schedule starts and ends on the same day runs once (TransferJob `schedule`): the
  declaration's `copy_on`; `pulumi up` with a later date runs it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accelplane.clouds.gcp.declaration import gcp_platform
from accelplane.migration.facets import ArtifactSink, ArtifactSource, FederatedReader, TransferEnds

if TYPE_CHECKING:
    import pulumi
    from pulumi_gcp.storage import (
        TransferJobScheduleArgsDict,
        TransferJobScheduleScheduleStartDateArgsDict,
        TransferJobTransferSpecArgsDict,
    )

SINK_ROLE = "roles/storage.legacyBucketWriter"
# A Cloud Storage source: storage.buckets.get, storage.objects.get and storage.objects.list ("Configure
# access to a source: Cloud Storage"): Legacy Bucket Reader and Object Viewer hold them.
SOURCE_BUCKET_ROLE, SOURCE_OBJECT_ROLE = "roles/storage.legacyBucketReader", "roles/storage.objectViewer"
GOOGLE_ISSUER = "accounts.google.com"


def _project(ends: TransferEnds) -> str:
    platform = gcp_platform(ends.target)
    assert platform.gcp is not None  # a GKE end's declaration names its project
    return platform.gcp.project


def _agent(ends: TransferEnds) -> Any:
    import pulumi_gcp as gcp  # start-up time: pulumi-gcp loads only when the program runs

    return gcp.storage.get_transfer_project_service_account_output(project=_project(ends))


def _reader(ends: TransferEnds) -> FederatedReader:
    agent = _agent(ends)
    return FederatedReader(issuer=GOOGLE_ISSUER, subject=agent.subject_id,
                           principal=agent.email.apply(lambda email: f"serviceAccount:{email}"),
                           what="Storage Transfer Service's service agent")


def _grant_gcs(ends: TransferEnds, reader: FederatedReader) -> pulumi.Output[str]:
    """A Cloud Storage source: the transfer agent may read the source bucket (no credential to name)."""
    # Start-up time: as _agent.
    import pulumi
    import pulumi_gcp as gcp

    assert reader.issuer == GOOGLE_ISSUER  # only Google's own transfer service reads a Cloud Storage source here
    source = gcp_platform(ends.source)
    assert source.gcp is not None
    opts = pulumi.ResourceOptions(provider=gcp.Provider(f"{ends.name}-source", project=source.gcp.project))
    grants = [gcp.storage.BucketIAMMember(f"{ends.name}-transfer-{suffix}", bucket=ends.source_bucket, role=role,
                                          member=reader.principal, opts=opts)
              for suffix, role in (("bucket-reader", SOURCE_BUCKET_ROLE), ("object-reader", SOURCE_OBJECT_ROLE))]
    # The job waits for the grants: an empty credential that resolves once they exist.
    return pulumi.Output.all(*(grant.etag for grant in grants)).apply(lambda _etags: "")


def _transfer(ends: TransferEnds, credential: pulumi.Output[str]) -> Mapping[str, Any]:
    # Start-up time: as _agent.
    import pulumi
    import pulumi_gcp as gcp

    agent = _agent(ends)
    opts = pulumi.ResourceOptions(provider=gcp.Provider(f"{ends.name}-target", project=_project(ends)))
    writer = gcp.storage.BucketIAMMember(f"{ends.name}-transfer-writer", bucket=ends.target_bucket, role=SINK_ROLE,
                                         member=agent.email.apply(lambda email: f"serviceAccount:{email}"), opts=opts)
    day = ends.copy_on
    once: TransferJobScheduleScheduleStartDateArgsDict = {"year": day.year, "month": day.month, "day": day.day}
    schedule: TransferJobScheduleArgsDict = {"schedule_start_date": once,
                                             "schedule_end_date": {"year": day.year, "month": day.month,
                                                                   "day": day.day}}
    # Objects already at the sink with the same content are skipped; nothing at the sink is deleted.
    spec: TransferJobTransferSpecArgsDict = {
        "gcs_data_sink": {"bucket_name": ends.target_bucket, "path": ends.target_prefix},
        "transfer_options": {"overwrite_objects_already_existing_in_sink": False,
                             "delete_objects_unique_in_sink": False}}
    if ends.source.cloud == "gcp":
        # The source grants resolve `credential` (empty): the job waits for them.
        spec["gcs_data_source"] = {"bucket_name": pulumi.Output.all(ends.source_bucket, credential).apply(
            lambda pair: pair[0]), "path": ends.source_prefix}
    else:
        spec["aws_s3_data_source"] = {"bucket_name": ends.source_bucket, "path": ends.source_prefix,
                                      "role_arn": credential}
    job = gcp.storage.TransferJob(
        f"{ends.name}-artifacts", project=_project(ends),
        description=f"accelplane migration {ends.name}: the model's files to the target end",
        transfer_spec=spec,
        schedule=schedule,
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[writer])))
    return {"artifactTransferJob": job.name}


def _mocks() -> pulumi.runtime.Mocks:
    from accelplane.clouds.gcp.mocks import GcpLikeMocks  # start-up time: the mocks load for an offline run only

    return GcpLikeMocks("acme-transfer", "us-central1")


STORAGE_TRANSFER = ArtifactSink(cloud="gcp", title="Storage Transfer Service", sources=("aws", "gcp"),
                                reader=_reader, transfer=_transfer, offline_mocks=_mocks)
GCS_SOURCE = ArtifactSource(cloud="gcp", scheme="gs", grant=_grant_gcs, offline_mocks=_mocks)
