"""`SecureBucket`: an S3 bucket for one role, private, KMS-encrypted, TLS-only, with lifecycle rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
from pulumi_aws.s3 import BucketLifecycleConfigurationRuleArgsDict

from accelplane.clouds.aws.components.policy_document import policy_json
from accelplane.declaration import Bucket, LifecycleRule


@dataclass(frozen=True)
class SecureBucketArgs:
    bucket: Bucket
    kms_key_arn: pulumi.Input[str]
    tags: Mapping[str, str]
    protect: bool


class SecureBucket(pulumi.ComponentResource):
    arn: pulumi.Output[str]
    bucket_name: pulumi.Output[str]

    def __init__(self, name: str, args: SecureBucketArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:SecureBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        spec = args.bucket
        bucket = aws.s3.Bucket(
            f"{name}-bucket",
            bucket_prefix=f"{name}-",
            force_destroy=spec.force_destroy,
            tags={**args.tags, "accelplane.io/bucket-role": spec.role.value},
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        private_objects(name, bucket.id, child)
        versioning = aws.s3.BucketVersioning(
            f"{name}-versioning",
            bucket=bucket.id,
            versioning_configuration={"status": "Enabled" if spec.versioning else "Suspended"},
            opts=child,
        )
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption",
            bucket=bucket.id,
            rules=[
                {
                    "apply_server_side_encryption_by_default": {
                        "sse_algorithm": "aws:kms",
                        "kms_master_key_id": args.kms_key_arn,
                    },
                    # Bucket keys cut KMS requests (and cost) by orders of magnitude for checkpoints.
                    "bucket_key_enabled": True,
                }
            ],
            opts=child,
        )
        aws.s3.BucketPolicy(
            f"{name}-policy",
            bucket=bucket.id,
            policy=policy_json(
                [
                    {
                        "Sid": "DenyInsecureTransport",
                        "Effect": "Deny",
                        "Principal": "*",
                        "Action": "s3:*",
                        "Resource": [bucket.arn, pulumi.Output.concat(bucket.arn, "/*")],
                        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                    }
                ]
            ),
            opts=child,
        )
        if spec.lifecycle:
            aws.s3.BucketLifecycleConfiguration(
                f"{name}-lifecycle",
                bucket=bucket.id,
                rules=[_lifecycle_rule(rule) for rule in spec.lifecycle],
                # Noncurrent-version rules only act once versioning is on.
                opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]),
            )
        self.arn = bucket.arn
        self.bucket_name = bucket.bucket
        self.register_outputs({"arn": bucket.arn, "bucket": bucket.bucket})


def private_objects(name: str, bucket_id: pulumi.Input[str], opts: pulumi.ResourceOptions) -> None:
    """No ACLs (the bucket owner owns every object) and every public-access block on: what any bucket of
    the platform has (AP-S3-001, AP-S3-002, AP-S3-009)."""
    aws.s3.BucketOwnershipControls(
        f"{name}-ownership", bucket=bucket_id, rule={"object_ownership": "BucketOwnerEnforced"}, opts=opts
    )
    aws.s3.BucketPublicAccessBlock(
        f"{name}-public-access",
        bucket=bucket_id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )


def _lifecycle_rule(rule: LifecycleRule) -> BucketLifecycleConfigurationRuleArgsDict:
    out: BucketLifecycleConfigurationRuleArgsDict = {
        "id": rule.id,
        "status": "Enabled",
        "filter": {"prefix": rule.prefix},
    }
    if rule.expire_days:
        out["expiration"] = {"days": rule.expire_days}
    if rule.transitions:
        out["transitions"] = [{"days": t.days, "storage_class": t.storage_class} for t in rule.transitions]
    if rule.noncurrent_expire_days:
        out["noncurrent_version_expiration"] = {"noncurrent_days": rule.noncurrent_expire_days}
    if rule.abort_multipart_days:
        out["abort_incomplete_multipart_upload"] = {"days_after_initiation": rule.abort_multipart_days}
    return out
