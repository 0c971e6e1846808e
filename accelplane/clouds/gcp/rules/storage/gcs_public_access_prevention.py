"""AP-GCS-002: Cloud Storage buckets enforce public access prevention.

`publicAccessPrevention: enforced` refuses every grant to `allUsers`/`allAuthenticatedUsers` on the
bucket and its objects, whatever IAM or an ACL says later; `inherited` (the default) leaves it to the
organisation policy. Twin of AP-S3-001/AP-S3-002.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    value = as_str(resource.get("publicAccessPrevention"))
    if value != "enforced":
        yield f"publicAccessPrevention is {value or 'not set (inherited)'}, not enforced: the bucket can be made public"


RULE = Rule(
    id="AP-GCS-002",
    name="gcs-public-access-prevention",
    description="Checks whether a Cloud Storage bucket sets publicAccessPrevention to enforced.",
    family=Family.storage,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Set public_access_prevention=\"enforced\" on the bucket.",
    resource_types=frozenset({t.GCS_BUCKET}),
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/storage/docs/public-access-prevention",),
)
