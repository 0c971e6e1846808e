"""AP-S3-009: buckets disable ACLs (object ownership BucketOwnerEnforced), as AWS recommends."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.storage.buckets import BUCKET_TYPES, companions
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    owners = [as_str(c.get("rule", "objectOwnership")) for c in companions(graph, resource, t.S3_OWNERSHIP)]
    if "BucketOwnerEnforced" not in owners:
        yield f"object ownership is {', '.join(owners) or 'not set'}: ACLs stay in effect"


RULE = Rule(
    id="AP-S3-009",
    name="s3-acls-disabled",
    description="Checks whether a bucket sets object ownership to BucketOwnerEnforced.",
    family=Family.storage,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Add BucketOwnershipControls with object_ownership BucketOwnerEnforced.",
    resource_types=BUCKET_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("data-protection",),
)
