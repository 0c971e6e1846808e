"""AWS's part in moving a model's files to another cloud: S3 as the source of a transfer (entry point
`accelplane.artifact_sources`, `aws`). The reader is another cloud's identity, trusted through web
identity federation: an IAM role it may assume with its OpenID Connect token, reading the one prefix.

Facts (read 2026-12-07):
- Google's Storage Transfer Service reads S3 "with a federated identity": a role whose trust policy
  allows `sts:AssumeRoleWithWebIdentity` for the principal `accounts.google.com` under the condition
  `accounts.google.com:sub` = the transfer service account's subject id; the role needs `s3:ListBucket`
  always and `s3:GetObject` for current versions (Google Cloud, "Configure access to a source: Amazon
  S3", cloud.google.com/storage-transfer/docs/source-amazon-s3).
- `s3:prefix` narrows `s3:ListBucket` to keys under a prefix (IAM User Guide, S3 condition keys).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from accelplane.migration.facets import ArtifactSource, FederatedReader, TransferEnds

if TYPE_CHECKING:
    import pulumi


def _grant(ends: TransferEnds, reader: FederatedReader) -> pulumi.Output[str]:
    # Start-up time: pulumi-aws loads only when the program runs.
    import pulumi
    import pulumi_aws as aws

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


S3_SOURCE = ArtifactSource(cloud="aws", scheme="s3", grant=_grant, offline_mocks=_mocks)
