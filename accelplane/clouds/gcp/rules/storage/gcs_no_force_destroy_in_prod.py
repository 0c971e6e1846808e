"""AP-GCS-005: production Cloud Storage buckets cannot be deleted with their data (`forceDestroy`).

The environment is the graph's (the stack's declaration, else the `accelplane-environment` label).
Twin of AP-S3-011.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment == "prod" and as_bool(resource.get("forceDestroy")):
        yield "forceDestroy is on in prod: destroying the stack deletes every object"


RULE = Rule(
    id="AP-GCS-005",
    name="gcs-no-force-destroy-in-prod",
    description="Checks whether a Cloud Storage bucket in a prod stack sets forceDestroy.",
    family=Family.storage,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set force_destroy=False for prod buckets.",
    resource_types=frozenset({t.GCS_BUCKET}),
    check=check,
    categories=("resilience",),
    references=("https://www.pulumi.com/registry/packages/gcp/api-docs/storage/bucket/#force_destroy_python",),
)
