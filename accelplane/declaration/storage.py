"""Buckets by role, with their lifecycle rules."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

from pydantic import Field

from accelplane.declaration.base import (
    BucketRole,
    Model,
    Name,
)


class LifecycleTransition(Model):
    days: int = Field(ge=0, description="Days after creation.")
    storage_class: str = Field(
        description="Storage class of the stack's object store, e.g. STANDARD_IA or GLACIER_IR (S3), NEARLINE or "
        "COLDLINE (Cloud Storage)."
    )

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


def unknown_storage_classes(
    buckets: Sequence[Bucket], known: Collection[str], kind: str
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(field path, message) for each lifecycle transition to a class not in `known`; `kind` is what the
    object store calls them ("S3 storage class", "Cloud Storage class")."""
    for index, bucket in enumerate(buckets):
        for rule_index, rule in enumerate(bucket.lifecycle):
            for t_index, transition in enumerate(rule.transitions):
                if transition.storage_class not in known:
                    yield (
                        ("buckets", index, "lifecycle", rule_index, "transitions", t_index, "storage_class"),
                        f"unknown {kind} {transition.storage_class!r}; expected one of "
                        + ", ".join(sorted(known)),
                    )
