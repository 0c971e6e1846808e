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
- A reader from another cloud with no federation into Google (AWS DataSync) signs Cloud Storage's XML
  API requests with an HMAC key of a service account ("HMAC keys", cloud.google.com/storage/docs/
  authentication/hmackeys); the key acts with that account's permissions: here the two read roles
  above, on the source bucket only. pulumi-gcp's `storage.HmacKey` answers the secret once, as a secret
  output (it stays encrypted in the state). A service account id is 6 to 30 characters, a lowercase
  letter first, then lowercase letters, digits and hyphens, not ending in a hyphen (IAM
  `projects.serviceAccounts.create`, `accountId`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accelplane.clouds.gcp.declaration import gcp_platform
from accelplane.migration.facets import ArtifactSink, ArtifactSource, FederatedReader, KeyReader, Reader, TransferEnds

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


def reader_account_id(migration: str) -> str:
    """The id of the service account a key reader acts as: `<migration>-files`, cut to IAM's 30 characters."""
    stem = "".join(c if c.isalnum() or c == "-" else "-" for c in migration.lower()).strip("-")[:24].rstrip("-")
    if not stem[:1].isalpha():
        stem = f"m-{stem}"[:24].rstrip("-")
    return f"{stem}-files"


def _grant_gcs(ends: TransferEnds, reader: Reader) -> pulumi.Output[str]:
    """A Cloud Storage source: Google's transfer agent is granted read access to the source bucket (no
    credential to name: ""); another cloud's reader gets a service account with that access and its
    HMAC key, answered as a secret JSON object."""
    # Start-up time: as _agent.
    import pulumi
    import pulumi_gcp as gcp

    source = gcp_platform(ends.source)
    assert source.gcp is not None
    opts = pulumi.ResourceOptions(provider=gcp.Provider(f"{ends.name}-source", project=source.gcp.project))
    account = None
    if isinstance(reader, KeyReader):
        account = gcp.serviceaccount.Account(
            f"{ends.name}-files-reader", account_id=reader_account_id(ends.name), project=source.gcp.project,
            display_name=f"{reader.what} reads the model's files for migration {ends.name}", opts=opts)
        member: pulumi.Input[str] = account.member
    else:
        assert isinstance(reader, FederatedReader) and reader.issuer == GOOGLE_ISSUER  # Google's own transfer service
        member = reader.principal
    grants = [gcp.storage.BucketIAMMember(f"{ends.name}-transfer-{suffix}", bucket=ends.source_bucket, role=role,
                                          member=member, opts=opts)
              for suffix, role in (("bucket-reader", SOURCE_BUCKET_ROLE), ("object-reader", SOURCE_OBJECT_ROLE))]
    etags = pulumi.Output.all(*(grant.etag for grant in grants))
    if account is None:
        # The job waits for the grants: an empty credential that resolves once they exist.
        return etags.apply(lambda _etags: "")
    key = gcp.storage.HmacKey(f"{ends.name}-files-reader", service_account_email=account.email,
                              project=source.gcp.project, opts=opts)
    # The key resolves once the grants exist: the sink never reads with a key that cannot read yet.
    return pulumi.Output.secret(pulumi.Output.all(key.access_id, key.secret, etags).apply(
        lambda parts: json.dumps({"access_id": parts[0], "secret": parts[1]})))


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
