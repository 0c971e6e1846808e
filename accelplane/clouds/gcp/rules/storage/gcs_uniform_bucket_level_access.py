"""AP-GCS-001: Cloud Storage buckets use uniform bucket-level access (IAM only, no object ACLs).

With fine-grained access every object carries its own ACL, which IAM does not show and a writer can
make public; uniform bucket-level access turns ACLs off. Twin of AP-S3-009, with its severity and
enforcement (advisory): public access prevention (AP-GCS-002, mandatory) already refuses public ACLs,
and the prefix conditions of AP-GCS-007 cannot be set without uniform access.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if as_bool(resource.get("uniformBucketLevelAccess")) is not True:
        yield "uniformBucketLevelAccess is off: object ACLs can grant access IAM does not show"


RULE = Rule(
    id="AP-GCS-001",
    name="gcs-uniform-bucket-level-access",
    description="Checks whether a Cloud Storage bucket has uniform bucket-level access on.",
    family=Family.storage,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Set uniform_bucket_level_access=True on the bucket.",
    resource_types=frozenset({t.GCS_BUCKET}),
    check=check,
    categories=("data-protection",),
    references=("https://cloud.google.com/storage/docs/uniform-bucket-level-access",),
)
