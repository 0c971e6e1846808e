"""AP-S3-002: every bucket has a public access block (its own, or a complete account-level one)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.storage.buckets import BUCKET_TYPES, companions
from accelplane.clouds.aws.rules.storage.s3_public_access_block_all_flags import FLAGS
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for account_block in graph.of_type(t.S3_ACCOUNT_PUBLIC_ACCESS_BLOCK):
        if all(as_bool(account_block.get(flag)) is True for flag in FLAGS):
            return
    if not companions(graph, resource, t.S3_PUBLIC_ACCESS_BLOCK):
        yield "bucket has no public access block"


RULE = Rule(
    id="AP-S3-002",
    name="s3-bucket-has-public-access-block",
    description="Checks whether every S3 bucket is covered by a public access block.",
    family=Family.storage,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Add aws.s3.BucketPublicAccessBlock for the bucket with all four flags set.",
    resource_types=BUCKET_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("data-protection",),
)
