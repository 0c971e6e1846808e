"""AP-GKMS-002: no Cloud KMS key or key ring IAM grant to `allUsers` or `allAuthenticatedUsers`.

Whoever may use a key may decrypt everything encrypted with it (the buckets' and the cluster's
secrets' data keys). Twin of AP-KMS-002.
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
    id="AP-GKMS-002",
    name="gcp-kms-no-public-members",
    description="Checks whether a Cloud KMS crypto key or key ring IAM grant names allUsers or "
    "allAuthenticatedUsers.",
    family=Family.secrets,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Grant roles/cloudkms.cryptoKeyEncrypterDecrypter on the key to the service agents that use it "
    "(Cloud Storage, GKE, Secret Manager) only.",
    resource_types=t.GCP_KMS_IAM_TYPES,
    check=check,
    categories=("encryption", "least-privilege"),
    references=("https://cloud.google.com/kms/docs/iam",),
)
