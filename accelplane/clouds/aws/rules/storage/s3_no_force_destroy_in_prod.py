"""AP-S3-011: production buckets cannot be deleted with their data (`forceDestroy`)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws.rules.storage.buckets import BUCKET_TYPES
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment == "prod" and as_bool(resource.get("forceDestroy")):
        yield "forceDestroy is on in prod: destroying the stack deletes every object"


RULE = Rule(
    id="AP-S3-011",
    name="s3-no-force-destroy-in-prod",
    description="Checks whether a bucket in a prod stack sets forceDestroy.",
    family=Family.storage,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set force_destroy: false for prod buckets.",
    resource_types=BUCKET_TYPES,
    check=check,
    categories=("resilience",),
)
