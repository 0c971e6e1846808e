"""AP-GKE-004: Kubernetes Secrets are encrypted at the application layer with a Cloud KMS key.

`databaseEncryption.state` ENCRYPTED with `keyName` set: etcd holds Secrets encrypted with a data key
that the platform's Cloud KMS key wraps. Twin of AP-EKS-002.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str

ENCRYPTED = frozenset({"ENCRYPTED", "ALL_OBJECTS_ENCRYPTION_ENABLED"})


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    state = as_str(resource.get("databaseEncryption", "state"))
    if state not in ENCRYPTED:
        yield f"application-layer secrets encryption is {state or 'not configured'}: Secrets are not " \
              "envelope-encrypted with a Cloud KMS key"
    elif not as_str(resource.get("databaseEncryption", "keyName")):
        yield "databaseEncryption names no keyName"


RULE = Rule(
    id="AP-GKE-004",
    name="gke-secrets-encryption",
    description="Checks whether a GKE cluster encrypts Kubernetes Secrets with a Cloud KMS key "
    "(databaseEncryption ENCRYPTED).",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set database_encryption {state: \"ENCRYPTED\", key_name: <crypto key id>} and grant the GKE "
    "service agent roles/cloudkms.cryptoKeyEncrypterDecrypter on the key.",
    resource_types=frozenset({t.GKE_CLUSTER}),
    check=check,
    categories=("encryption", "kubernetes"),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/encrypting-secrets",),
)
