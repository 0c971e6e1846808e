"""AWS's part in moving a model's files between clouds: S3 as the source of a transfer (entry point
`accelplane.artifact_sources`, `aws`), and AWS DataSync copying another cloud's object store into the
target end's S3 bucket (entry point `accelplane.artifact_sinks`, `aws`).

As a source, the reader is another cloud's identity, trusted through web identity federation: an IAM
role it may assume with its OpenID Connect token, reading the one prefix. As a sink, DataSync reads the
source through its S3-compatible API with an access key the source's cloud makes (`KeyReader`): no
federation reaches Cloud Storage from AWS.

Facts (read 2026-12-07):
- Google's Storage Transfer Service reads S3 "with a federated identity": a role whose trust policy
  allows `sts:AssumeRoleWithWebIdentity` for the principal `accounts.google.com` under the condition
  `accounts.google.com:sub` = the transfer service account's subject id; the role needs `s3:ListBucket`
  always and `s3:GetObject` for current versions (Google Cloud, "Configure access to a source: Amazon
  S3", cloud.google.com/storage-transfer/docs/source-amazon-s3).
- `s3:prefix` narrows `s3:ListBucket` to keys under a prefix (IAM User Guide, S3 condition keys).
- DataSync needs no agent "between Amazon S3 and object storage in other clouds" (DataSync User Guide,
  "Do I need an AWS DataSync agent?"); such a task runs in Enhanced mode ("transfers between other
  clouds and Amazon S3 without an agent", API reference CreateTask `TaskMode`). An Enhanced task whose
  source cannot tag objects (Cloud Storage's XML API has no object tagging) fails at once unless
  `ObjectTags` is `NONE` ("Choosing a task mode"), and verifies only what it transferred
  (`VerifyMode` `ONLY_FILES_TRANSFERRED`).
- Cloud Storage is an object storage location at `storage.googleapis.com`, HTTPS, authenticated with
  an HMAC key of a service account (AWS Storage Blog, "Migrating Google Cloud Storage to Amazon S3
  using AWS DataSync"; Cloud Storage "HMAC keys").
- DataSync writes to S3 as a role it assumes (`datasync.amazonaws.com`), limited to the caller's account
  and DataSync's own ARNs against the confused deputy (`aws:SourceAccount`, `aws:SourceArn`); the role
  needs s3:GetBucketLocation, s3:ListBucket, s3:ListBucketMultipartUploads on the bucket and
  s3:AbortMultipartUpload, s3:DeleteObject, s3:GetObject, s3:GetObjectTagging, s3:ListMultipartUploadParts,
  s3:PutObject, s3:PutObjectTagging on its objects (DataSync User Guide, "Creating an IAM role for
  DataSync to access your Amazon S3 location"), and kms:GenerateDataKey and kms:Decrypt on the key of
  a bucket encrypted with SSE-KMS (S3 User Guide, "Using server-side encryption with AWS KMS keys":
  a multipart upload decrypts the data key to complete).
- A schedule is a cron expression with a year field (`cron(0 0 7 12 ? 2026)` fires once); DataSync
  schedules take AWS's cron syntax ("Scheduling your task").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from accelplane.migration.facets import ArtifactSink, ArtifactSource, FederatedReader, KeyReader, Reader, TransferEnds

if TYPE_CHECKING:
    import pulumi
    from pulumi_aws.datasync import TaskOptionsArgsDict

# Where DataSync reaches Cloud Storage's XML API (the S3-compatible interface HMAC keys sign for).
GCS_XML_API = "storage.googleapis.com"
DATASYNC_PRINCIPAL = "datasync.amazonaws.com"
# The S3 actions DataSync's role needs on the target bucket, and on the objects below the prefix.
SINK_BUCKET_ACTIONS = ("s3:GetBucketLocation", "s3:ListBucketMultipartUploads")  # and s3:ListBucket, in the prefix
SINK_OBJECT_ACTIONS = ("s3:AbortMultipartUpload", "s3:DeleteObject", "s3:GetObject", "s3:GetObjectTagging",
                       "s3:ListMultipartUploadParts", "s3:PutObject", "s3:PutObjectTagging")
SINK_KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey")


def _grant(ends: TransferEnds, reader: Reader) -> pulumi.Output[str]:
    # Start-up time: pulumi-aws loads only when the program runs.
    import pulumi
    import pulumi_aws as aws

    assert isinstance(reader, FederatedReader)  # the sinks reading S3 here federate (Storage Transfer Service)

    provider = aws.Provider(f"{ends.name}-source", region=ends.source.region)
    opts = pulumi.ResourceOptions(provider=provider)
    trust = reader.subject.apply(lambda subject: json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": reader.issuer}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {f"{reader.issuer}:sub": subject}}}]}))
    # The source end's tags: the role lives in its account, beside its bucket.
    role = aws.iam.Role(f"{ends.name}-transfer-reader", assume_role_policy=trust, max_session_duration=3600,
                        description=f"{reader.what} reads the model's files for migration {ends.name}",
                        tags=ends.source.resource_tags, opts=opts)
    prefix = ends.source_prefix

    def policy(bucket: str) -> str:
        listing: dict = {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{bucket}"}
        if prefix:
            listing["Condition"] = {"StringLike": {"s3:prefix": [f"{prefix}*"]}}
        return json.dumps({"Version": "2012-10-17", "Statement": [
            listing, {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/{prefix}*"}]})

    aws.iam.RolePolicy(f"{ends.name}-transfer-read", role=role.name, policy=ends.source_bucket.apply(policy), opts=opts)
    return role.arn


def _mocks() -> pulumi.runtime.Mocks:
    from accelplane.clouds.aws.mocks import AwsLikeMocks  # start-up time: the mocks load for an offline run only

    return AwsLikeMocks("us-east-1")  # IAM is global: its ARNs name no region


def _key_reader(ends: TransferEnds) -> KeyReader:
    return KeyReader(what="AWS DataSync")


def _folder(prefix: str) -> str:
    """A DataSync location's subdirectory for a key prefix: `llm/` -> `/llm/`, `` -> `/`."""
    return "/" + prefix.lstrip("/")


def once_on(day: date) -> str:
    """The cron expression that fires once, at 00:00 UTC of `day`."""
    return f"cron(0 0 {day.day} {day.month} ? {day.year})"


def _transfer(ends: TransferEnds, credential: pulumi.Output[str]) -> Mapping[str, Any]:
    """DataSync in Enhanced mode, no agent: the source's object store (read with the key `credential`
    holds) into the target bucket's prefix, once on `copy_on`; nothing at the target overwritten or deleted."""
    # Start-up time: as _grant.
    import pulumi
    import pulumi_aws as aws

    assert ends.source.cloud == "gcp"  # ArtifactSink.sources: Cloud Storage is the one key-read source
    target = ends.target
    provider = aws.Provider(f"{ends.name}-target", region=target.region)
    opts = pulumi.ResourceOptions(provider=provider)
    account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(provider=provider)).account_id
    key_arn = ends.target_outputs.apply(lambda outputs: str(outputs["dataKeyArn"]))
    trust = account.apply(lambda account_id: json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": DATASYNC_PRINCIPAL}, "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"aws:SourceAccount": account_id},
                      "ArnLike": {"aws:SourceArn": f"arn:aws:datasync:{target.region}:{account_id}:*"}}}]}))
    role = aws.iam.Role(f"{ends.name}-transfer-writer", assume_role_policy=trust, max_session_duration=3600,
                        description=f"AWS DataSync writes the model's files for migration {ends.name}",
                        tags=target.resource_tags, opts=opts)
    prefix = ends.target_prefix

    def policy(pair: list[str]) -> str:
        bucket, key = pair
        listing: dict = {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{bucket}"}
        if prefix:
            listing["Condition"] = {"StringLike": {"s3:prefix": [f"{prefix}*"]}}
        # s3:prefix is absent from the other bucket calls: a condition on it would deny them.
        return json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": list(SINK_BUCKET_ACTIONS), "Resource": f"arn:aws:s3:::{bucket}"}, listing,
            {"Effect": "Allow", "Action": list(SINK_OBJECT_ACTIONS), "Resource": f"arn:aws:s3:::{bucket}/{prefix}*"},
            {"Effect": "Allow", "Action": list(SINK_KEY_ACTIONS), "Resource": key}]})

    write = aws.iam.RolePolicy(f"{ends.name}-transfer-write", role=role.name,
                               policy=pulumi.Output.all(ends.target_bucket, key_arn).apply(policy), opts=opts)
    sink = aws.datasync.S3Location(
        f"{ends.name}-artifacts-target", s3_bucket_arn=ends.target_bucket.apply(lambda b: f"arn:aws:s3:::{b}"),
        subdirectory=_folder(prefix), s3_config={"bucket_access_role_arn": role.arn}, tags=target.resource_tags,
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[write])))
    source = aws.datasync.LocationObjectStorage(
        f"{ends.name}-artifacts-source", server_hostname=GCS_XML_API, server_protocol="HTTPS", server_port=443,
        bucket_name=ends.source_bucket, subdirectory=_folder(ends.source_prefix),
        access_key=credential.apply(lambda key: str(json.loads(key)["access_id"])),
        secret_key=pulumi.Output.secret(credential.apply(lambda key: str(json.loads(key)["secret"]))),
        tags=target.resource_tags, opts=opts)
    # Objects already at the target are kept (overwrite NEVER) and none is deleted there (PRESERVE).
    options: TaskOptionsArgsDict = {"object_tags": "NONE", "overwrite_mode": "NEVER",
                                    "preserve_deleted_files": "PRESERVE", "transfer_mode": "CHANGED",
                                    "verify_mode": "ONLY_FILES_TRANSFERRED"}
    task = aws.datasync.Task(
        f"{ends.name}-artifacts", name=f"{ends.name}-artifacts", task_mode="ENHANCED",
        source_location_arn=source.arn, destination_location_arn=sink.arn, options=options,
        schedule={"schedule_expression": once_on(ends.copy_on)}, tags=target.resource_tags, opts=opts)
    return {"artifactTransferTask": task.arn}


def _sink_mocks() -> pulumi.runtime.Mocks:
    from accelplane.clouds.aws.mocks import AwsLikeMocks  # start-up time: as _mocks

    return AwsLikeMocks("us-east-1")


S3_SOURCE = ArtifactSource(cloud="aws", scheme="s3", grant=_grant, offline_mocks=_mocks)
DATASYNC = ArtifactSink(cloud="aws", title="AWS DataSync", sources=("gcp",), reader=_key_reader,
                        transfer=_transfer, offline_mocks=_sink_mocks)
