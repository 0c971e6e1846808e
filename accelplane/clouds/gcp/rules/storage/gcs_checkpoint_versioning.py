"""AP-GCS-004: checkpoint buckets keep object versions (a bad write must not destroy the last good one).

The bucket's role is its `bucket-role` label (GCP label keys take no `.` or `/`: the AWS layer's
`accelplane.io/bucket-role` tag; roles with `_` are written with `-`). Twin of AP-S3-005.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.labels import BUCKET_ROLE_LABEL, label
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if label(resource, BUCKET_ROLE_LABEL) != "checkpoints":
        return
    if as_bool(resource.get("versioning", "enabled")) is not True:
        yield "checkpoint bucket without versioning (versioning.enabled is not true)"


RULE = Rule(
    id="AP-GCS-004",
    name="gcs-checkpoint-versioning",
    description="Checks whether a checkpoint bucket (label bucket-role=checkpoints) has object "
    "versioning enabled.",
    family=Family.storage,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Set versioning.enabled=True on the checkpoints bucket (and a lifecycle rule for noncurrent "
    "versions).",
    resource_types=frozenset({t.GCS_BUCKET}),
    check=check,
    categories=("resilience",),
    references=("https://cloud.google.com/storage/docs/object-versioning",),
)
