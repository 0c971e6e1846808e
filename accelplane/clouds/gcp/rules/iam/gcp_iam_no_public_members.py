"""AP-GIAM-002: no GCP IAM grant to `allUsers`, `allAuthenticatedUsers` or `principalSet://goog/public:all`.

`allUsers` is anyone on the internet, `allAuthenticatedUsers` anyone with a Google account; on a
project, service account or repository either one makes the grant public. Buckets, Cloud KMS keys
and Secret Manager secrets have their own rules (AP-GCS-006, AP-GKMS-002, AP-GSM-002).
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
    id="AP-GIAM-002",
    name="gcp-iam-no-public-members",
    description="Checks whether a GCP IAM member, binding or policy grants a role to allUsers or "
    "allAuthenticatedUsers.",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Grant the role to the workload's own principal (Workload Identity) or service account.",
    resource_types=t.GCP_IAM_TYPES - t.GCP_STORAGE_IAM_TYPES - t.GCP_KMS_IAM_TYPES - t.GCP_SECRET_IAM_TYPES,
    check=check,
    categories=("network-exposure", "least-privilege"),
    references=("https://cloud.google.com/iam/docs/principal-identifiers",),
)
