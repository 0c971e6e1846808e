"""S3 buckets (found by their role tag) and each bucket setting resource."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE
from accelplane.clouds.aws.verify.live_view.core import (
    BUCKET_ROLE_TAG,
    ViewCore,
)
from accelplane.clouds.aws.verify.live_view.wire import (
    wire,
)
from accelplane.rules.view import Resource

BUCKET_SETTINGS = {
    "aws:s3/bucketVersioning:BucketVersioning": "versioning",
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": "encryption",
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": "public_access_block",
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": "ownership",
    "aws:s3/bucketPolicy:BucketPolicy": "policy",
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": "lifecycle",
    "aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration": "object_lock",
}


class S3Reader(ViewCore):
    """S3 buckets (found by their role tag) and each bucket setting resource."""

    def _buckets(self) -> None:
        declared_buckets = self.declared.of_type("aws:s3/bucket:Bucket")
        settings = [r for t in BUCKET_SETTINGS for r in self.declared.of_type(t)]
        if self.inv.tagged is UNREADABLE:
            self._unreadable([*declared_buckets, *settings], "tag:GetResources failed")
            return
        claimed: set[str] = set()
        for resource in declared_buckets:
            role = resource.tags().get(BUCKET_ROLE_TAG)
            prefix = resource.props.get("bucketPrefix") or ""
            name = resource.props.get("bucket")
            candidates = sorted(
                n
                for n, state in self.inv.buckets.items()
                if n not in claimed
                and (n == name if name else n.startswith(prefix))
                and (role is None or state.tags.get(BUCKET_ROLE_TAG) == role)
            )
            if not candidates:
                continue
            state = self.inv.buckets[candidates[0]]
            claimed.add(state.name)
            self._live(
                resource,
                resource.type,
                state.name,
                {"bucket": state.name, "tags": state.tags},
                {"arn": f"arn:aws:s3:::{state.name}", "bucket": state.name},
                raw=state,
            )
        for name, state in self.inv.buckets.items():
            if name not in claimed:
                self._unexpected(
                    self._live(
                        None,
                        "aws:s3/bucket:Bucket",
                        name,
                        {"bucket": name, "tags": state.tags},
                        {"arn": f"arn:aws:s3:::{name}", "bucket": name},
                    ),
                    "a bucket tagged with the platform that the declaration does not have",
                )
        for resource in settings:
            bucket = self._live_ref(resource.props.get("bucket"))
            state = self.inv.buckets.get(bucket) if bucket else None
            if not bucket or state is None:
                continue
            value = getattr(state, BUCKET_SETTINGS[resource.type])
            if value is UNREADABLE:
                self._unreadable([resource], f"reading {BUCKET_SETTINGS[resource.type]} of {bucket} failed")
                continue
            props = self._bucket_setting(resource, value)
            if props is not None:
                self._live(resource, resource.type, bucket, {"bucket": bucket, **props})

    @staticmethod
    def _bucket_setting(resource: Resource, value: Any) -> dict[str, Any] | None:
        kind = BUCKET_SETTINGS[resource.type]
        if kind == "versioning":
            value = value or {}
            return {
                "versioningConfiguration": {
                    "status": value.get("Status", "Disabled"),
                    "mfaDelete": value.get("MFADelete"),
                }
            }
        if value is None:
            return None  # the API said: no such configuration
        if kind == "encryption":
            return {"rules": wire(value.get("Rules", []), resource.props.get("rules"))}
        if kind == "public_access_block":
            return wire(value, resource.props)
        if kind == "ownership":
            rules = value.get("Rules") or [{}]
            return {"rule": wire(rules[0], resource.props.get("rule"))}
        if kind == "policy":
            return {"policy": value}
        if kind == "object_lock":
            return wire(value, resource.props)
        return {"rules": wire(value, resource.props.get("rules"))}
