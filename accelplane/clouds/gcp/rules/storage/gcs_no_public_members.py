"""AP-GCS-006: no bucket or managed-folder IAM grant to `allUsers` or `allAuthenticatedUsers`.

Public access prevention (AP-GCS-002) makes Cloud Storage refuse such a grant at apply time; this
rule says so at preview, on the grant itself. Twin of AP-S3-010.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import public_grants
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    yield from public_grants(resource)


RULE = Rule(
    id="AP-GCS-006",
    name="gcs-no-public-members",
    description="Checks whether a Cloud Storage bucket or managed-folder IAM grant names allUsers or "
    "allAuthenticatedUsers.",
    family=Family.storage,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Grant object roles to the workloads' own principals; serve public content through a load "
    "balancer instead.",
    resource_types=t.GCP_STORAGE_IAM_TYPES,
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/storage/docs/access-control/making-data-public",),
)
