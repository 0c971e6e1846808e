"""Helpers shared by the S3 rules: a bucket's companion resources and its role."""

from __future__ import annotations

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.view import Resource

BUCKET_ROLE_TAG = "accelplane.io/bucket-role"


def companions(graph: ReferenceGraph, bucket: Resource, *types: str) -> list[Resource]:
    """Resources of `types` configuring `bucket` (their `bucket` input refers to it)."""
    return graph.referring(bucket, "bucket", *types)


def bucket_role(bucket: Resource) -> str | None:
    role = bucket.tags().get(BUCKET_ROLE_TAG)
    return role if isinstance(role, str) else None


def is_checkpoint_bucket(bucket: Resource) -> bool:
    return bucket_role(bucket) == "checkpoints"


BUCKET_TYPES = t.S3_BUCKETS
