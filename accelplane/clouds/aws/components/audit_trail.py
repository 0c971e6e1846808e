"""`AuditTrail`: a CloudTrail trail of who changed or read the stack's data, keys and secrets, kept
where nobody in the platform can delete it.

- The trail records the account's management events in every region (API calls that change or
  describe resources, IAM's among them; Secrets Manager's `GetSecretValue` is one) and the data events
  (object reads and writes) of the stack's model-artifact and checkpoint buckets, through advanced
  event selectors (CloudTrail User Guide, "Logging data events"; a multi-Region trail, as the
  account's other Regions are where an attacker acts unseen otherwise).
- Log file validation on: each hour's digest file signs the log files it lists, so a removed or
  edited file shows (`aws cloudtrail validate-logs`).
- Log files are encrypted with their own KMS key, whose policy lets CloudTrail encrypt for this
  trail only (`aws:SourceArn`, and the `aws:cloudtrail:arn` encryption context of this account's
  trails; "Configure AWS KMS key policies for CloudTrail").
- The bucket is created with S3 Object Lock and a default retention in COMPLIANCE mode: no principal,
  the account root included, can delete or overwrite a log file version before `retention_days`
  (S3 User Guide, "Object Lock"); a lifecycle rule removes them after. Its policy admits CloudTrail's
  writes for this trail only ("Amazon S3 bucket policy for CloudTrail") and denies reading the log
  files to every principal but the declared readers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
from pulumi_aws.cloudtrail import TrailAdvancedEventSelectorArgsDict

from accelplane.clouds.aws.components.bucket import private_objects
from accelplane.clouds.aws.components.encryption_key import EncryptionKey, EncryptionKeyArgs
from accelplane.clouds.aws.components.policy_document import Statement, policy_json

CLOUDTRAIL = "cloudtrail.amazonaws.com"


@dataclass(frozen=True)
class AuditTrailArgs:
    trail_name: str
    account_id: pulumi.Input[str]
    partition: pulumi.Input[str]
    region: str
    retention_days: int
    readers: Sequence[str]  # IAM role ARNs that may read the log files
    data_bucket_arns: Sequence[pulumi.Input[str]]  # buckets whose object reads and writes are recorded
    tags: Mapping[str, str]
    protect: bool


class AuditTrail(pulumi.ComponentResource):
    trail_arn: pulumi.Output[str]
    bucket_name: pulumi.Output[str]

    def __init__(self, name: str, args: AuditTrailArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:AuditTrail", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        trail_arn = pulumi.Output.concat("arn:", args.partition, ":cloudtrail:", args.region, ":", args.account_id,
                                         ":trail/", args.trail_name)
        key = EncryptionKey(
            f"{name}-logs",
            EncryptionKeyArgs(
                description="CloudTrail log files", account_id=args.account_id, partition=args.partition,
                tags=args.tags, protect=args.protect, service_statements=_key_statements(trail_arn, args),
            ),
            opts=child,
        )
        bucket = aws.s3.Bucket(
            f"{name}-bucket",
            bucket_prefix=f"{name}-",
            object_lock_enabled=True,  # only at creation: a bucket cannot be given Object Lock later
            force_destroy=False,
            tags={**args.tags, "accelplane.io/bucket-role": "audit"},
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        private_objects(name, bucket.id, child)
        versioning = aws.s3.BucketVersioning(
            f"{name}-versioning", bucket=bucket.id, versioning_configuration={"status": "Enabled"}, opts=child)
        aws.s3.BucketObjectLockConfiguration(
            f"{name}-object-lock",
            bucket=bucket.id,
            object_lock_enabled="Enabled",
            rule={"default_retention": {"mode": "COMPLIANCE", "days": args.retention_days}},
            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]),
        )
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption",
            bucket=bucket.id,
            rules=[{"apply_server_side_encryption_by_default": {"sse_algorithm": "aws:kms",
                                                                "kms_master_key_id": key.arn},
                    "bucket_key_enabled": True}],
            opts=child,
        )
        aws.s3.BucketLifecycleConfiguration(
            f"{name}-lifecycle",
            bucket=bucket.id,
            rules=[{"id": "expire-after-retention", "status": "Enabled", "filter": {"prefix": ""},
                    "expiration": {"days": args.retention_days},
                    "noncurrent_version_expiration": {"noncurrent_days": 1}}],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]),
        )
        policy = aws.s3.BucketPolicy(
            f"{name}-policy", bucket=bucket.id, policy=policy_json(_bucket_statements(bucket.arn, trail_arn, args)),
            opts=child)
        trail = aws.cloudtrail.Trail(
            f"{name}-trail",
            name=args.trail_name,
            s3_bucket_name=bucket.bucket,
            is_multi_region_trail=True,
            include_global_service_events=True,
            enable_log_file_validation=True,
            enable_logging=True,
            kms_key_id=key.arn,
            advanced_event_selectors=_selectors(args.data_bucket_arns),
            tags=dict(args.tags),
            # CloudTrail checks at creation that the bucket policy admits it.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[policy]),
        )
        self.trail_arn = trail.arn
        self.bucket_name = bucket.bucket
        self.register_outputs({"trailArn": trail.arn, "bucket": bucket.bucket})


def _selectors(bucket_arns: Sequence[pulumi.Input[str]]) -> list[TrailAdvancedEventSelectorArgsDict]:
    selectors: list[TrailAdvancedEventSelectorArgsDict] = [
        {"name": "Management events", "field_selectors": [{"field": "eventCategory", "equals": ["Management"]}]},
    ]
    if bucket_arns:
        selectors.append({
            "name": "Model and checkpoint objects",
            "field_selectors": [
                {"field": "eventCategory", "equals": ["Data"]},
                {"field": "resources.type", "equals": ["AWS::S3::Object"]},
                {"field": "resources.ARN", "starts_withs": [pulumi.Output.concat(arn, "/") for arn in bucket_arns]},
            ],
        })
    return selectors


def _key_statements(trail_arn: pulumi.Output[str], args: AuditTrailArgs) -> list[Statement]:
    account_trails = pulumi.Output.concat("arn:", args.partition, ":cloudtrail:*:", args.account_id, ":trail/*")
    return [
        {
            "Sid": "CloudTrailEncryptsThisTrailsLogs",
            "Effect": "Allow",
            "Principal": {"Service": CLOUDTRAIL},
            "Action": "kms:GenerateDataKey*",
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:SourceArn": trail_arn},
                          "StringLike": {"kms:EncryptionContext:aws:cloudtrail:arn": account_trails}},
        },
        {
            "Sid": "CloudTrailDescribesTheKey",
            "Effect": "Allow",
            "Principal": {"Service": CLOUDTRAIL},
            "Action": "kms:DescribeKey",
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:SourceArn": trail_arn}},
        },
    ]


def _bucket_statements(bucket_arn: pulumi.Output[str], trail_arn: pulumi.Output[str],
                       args: AuditTrailArgs) -> list[Statement]:
    files = pulumi.Output.concat(bucket_arn, "/*")
    statements: list[Statement] = [
        {
            "Sid": "DenyInsecureTransport",
            "Effect": "Deny",
            "Principal": "*",
            "Action": "s3:*",
            "Resource": [bucket_arn, files],
            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        },
        {
            "Sid": "CloudTrailChecksTheBucket",
            "Effect": "Allow",
            "Principal": {"Service": CLOUDTRAIL},
            "Action": "s3:GetBucketAcl",
            "Resource": bucket_arn,
            "Condition": {"StringEquals": {"aws:SourceArn": trail_arn}},
        },
        {
            "Sid": "CloudTrailWritesThisTrailsLogs",
            "Effect": "Allow",
            "Principal": {"Service": CLOUDTRAIL},
            "Action": "s3:PutObject",
            "Resource": pulumi.Output.concat(bucket_arn, "/AWSLogs/", args.account_id, "/*"),
            "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control", "aws:SourceArn": trail_arn}},
        },
    ]
    # Reading the log files is denied to everyone but the readers (an IAM grant alone cannot open them);
    # with none declared, to everyone.
    deny: dict[str, object] = {"Sid": "OnlyTheReadersReadTheLogs", "Effect": "Deny", "Principal": "*",
                               "Action": ["s3:GetObject", "s3:GetObjectVersion"], "Resource": files}
    if args.readers:
        deny["Condition"] = {"ArnNotEquals": {"aws:PrincipalArn": list(args.readers)}}
    statements.append(deny)
    return statements
