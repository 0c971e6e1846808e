"""`SecureBucket`: a Cloud Storage bucket for one role, private, CMEK-encrypted, versioned, with lifecycle.

- Uniform bucket-level access: IAM only, no object ACLs (and IAM conditions need it).
- Public access prevention `enforced`: no `allUsers`/`allAuthenticatedUsers` grant can take effect.
- CMEK: new objects are encrypted with the platform's data key. Cloud Storage's service agent
  encrypts, so it must hold the key before the bucket is created (`key_grants`, the
  EncryptionKey's grant), or creation fails with a permission error. The key must be in the
  bucket's location.
- Versioning and lifecycle rules as declared; retention only when asked (an unlocked policy:
  locking is irreversible and is left to a deliberate, manual step).
- `force_destroy` only when asked; `protect` in prod.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.storage as storage
from pulumi_gcp.storage import (
    BucketLifecycleRuleArgsDict,
    BucketLifecycleRuleConditionArgsDict,
    BucketRetentionPolicyArgsDict,
)

ROLE_LABEL = "bucket-role"
# Storage classes a lifecycle rule may move objects to (storage.v1 Bucket.storageClass lists them).
STORAGE_CLASSES = ("STANDARD", "NEARLINE", "COLDLINE", "ARCHIVE")
_SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class StorageClassTransition:
    days: int
    storage_class: str  # NEARLINE | COLDLINE | ARCHIVE | STANDARD

    def __post_init__(self) -> None:
        if self.storage_class not in STORAGE_CLASSES:
            raise ValueError(f"storage class {self.storage_class!r}: one of {', '.join(STORAGE_CLASSES)}")


@dataclass(frozen=True)
class BucketLifecycleRule:
    prefix: str = ""  # empty: the whole bucket
    delete_after_days: int | None = None  # live objects (they become noncurrent when versioned)
    transitions: Sequence[StorageClassTransition] = ()
    noncurrent_delete_after_days: int | None = None
    abort_multipart_days: int | None = None


@dataclass(frozen=True)
class SecureBucketArgs:
    role: str  # the bucket's role (datasets, checkpoints, logs, model_artifacts): a label
    location: str
    kms_key_id: pulumi.Input[str]
    # The data key's grant to Cloud Storage's service agent (EncryptionKey.grant).
    key_grants: Sequence[pulumi.Resource]
    labels: Mapping[str, str]
    protect: bool
    versioning: bool = True
    lifecycle: Sequence[BucketLifecycleRule] = ()
    retention_days: int | None = None
    force_destroy: bool = False
    storage_class: str = "STANDARD"

    def __post_init__(self) -> None:
        if self.storage_class not in STORAGE_CLASSES:
            raise ValueError(f"storage class {self.storage_class!r}: one of {', '.join(STORAGE_CLASSES)}")


class SecureBucket(pulumi.ComponentResource):
    bucket_name: pulumi.Output[str]
    url: pulumi.Output[str]

    def __init__(self, name: str, args: SecureBucketArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:SecureBucket", name, None, opts)
        retention: BucketRetentionPolicyArgsDict | None = None
        if args.retention_days:
            retention = {"retention_period": str(args.retention_days * _SECONDS_PER_DAY), "is_locked": False}
        bucket = storage.Bucket(
            f"{name}-bucket",
            location=args.location,
            storage_class=args.storage_class,
            uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            encryption={"default_kms_key_name": args.kms_key_id},
            versioning={"enabled": args.versioning},
            lifecycle_rules=[rule for spec in args.lifecycle for rule in lifecycle_rules(spec)],
            retention_policy=retention,
            force_destroy=args.force_destroy,
            labels={**args.labels, ROLE_LABEL: args.role},
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect, depends_on=list(args.key_grants)),
        )
        self.bucket_name = bucket.name
        self.url = bucket.url
        self.register_outputs({"name": bucket.name, "url": bucket.url})


def lifecycle_rules(spec: BucketLifecycleRule) -> list[BucketLifecycleRuleArgsDict]:
    """One declared rule as Cloud Storage rules: one action per rule, all with the rule's prefix."""

    def scoped(condition: BucketLifecycleRuleConditionArgsDict) -> BucketLifecycleRuleConditionArgsDict:
        if spec.prefix:
            condition["matches_prefixes"] = [spec.prefix]
        return condition

    rules: list[BucketLifecycleRuleArgsDict] = []
    if spec.delete_after_days:
        rules.append(
            {
                "action": {"type": "Delete"},
                "condition": scoped({"age": spec.delete_after_days, "with_state": "LIVE"}),
            }
        )
    for transition in spec.transitions:
        rules.append(
            {
                "action": {"type": "SetStorageClass", "storage_class": transition.storage_class},
                "condition": scoped({"age": transition.days, "with_state": "LIVE"}),
            }
        )
    if spec.noncurrent_delete_after_days:
        rules.append(
            {
                "action": {"type": "Delete"},
                "condition": scoped(
                    {"days_since_noncurrent_time": spec.noncurrent_delete_after_days, "with_state": "ARCHIVED"}
                ),
            }
        )
    if spec.abort_multipart_days:
        rules.append(
            {
                "action": {"type": "AbortIncompleteMultipartUpload"},
                "condition": scoped({"age": spec.abort_multipart_days}),
            }
        )
    return rules
