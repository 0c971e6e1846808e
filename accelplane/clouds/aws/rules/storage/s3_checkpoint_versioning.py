"""AP-S3-005: checkpoint buckets keep object versions (a bad write must not destroy the last good one)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.storage.buckets import BUCKET_TYPES, companions, is_checkpoint_bucket
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not is_checkpoint_bucket(resource):
        return
    statuses = [as_str(v.get("versioningConfiguration", "status")) for v in
                companions(graph, resource, t.S3_VERSIONING, t.S3_VERSIONING_V2)]
    if resource.get("versioning", "enabled") is True:
        statuses.append("Enabled")
    if "Enabled" not in statuses:
        yield f"checkpoint bucket without versioning (status: {', '.join(statuses) or 'not configured'})"


RULE = Rule(
    id="AP-S3-005",
    name="s3-checkpoint-versioning",
    description="Checks whether a checkpoint bucket (tag accelplane.io/bucket-role=checkpoints) has versioning "
    "enabled.",
    family=Family.storage,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Set versioning: true on the checkpoints bucket (BucketVersioning status Enabled).",
    resource_types=BUCKET_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("resilience",),
)
