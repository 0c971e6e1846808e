"""Buckets by role, with their lifecycle rules."""

from __future__ import annotations

from pydantic import Field

from accelplane.declaration.base import (
    BucketRole,
    Model,
    Name,
)


class LifecycleTransition(Model):
    days: int = Field(ge=0, description="Days after creation.")
    storage_class: str = Field(description="S3 storage class, e.g. STANDARD_IA, GLACIER_IR, INTELLIGENT_TIERING.")

class LifecycleRule(Model):
    id: Name
    prefix: str = Field(default="", description="Key prefix the rule applies to ('' for the whole bucket).")
    expire_days: int | None = Field(default=None, ge=1, description="Delete current objects after N days.")
    transitions: list[LifecycleTransition] = Field(default_factory=list, description="Storage class transitions.")
    noncurrent_expire_days: int | None = Field(default=None, ge=1, description="Delete old versions after N days.")
    abort_multipart_days: int | None = Field(default=7, ge=1, description="Abort incomplete multipart uploads.")

class Bucket(Model):
    role: BucketRole = Field(description="datasets, checkpoints, logs or model_artifacts.")
    versioning: bool = Field(default=True, description="Keep object versions.")
    lifecycle: list[LifecycleRule] = Field(default_factory=list, description="Lifecycle rules.")
    force_destroy: bool = Field(default=False, description="Allow deleting a non-empty bucket (never in prod).")
