"""AP-GSM-001: Secret Manager secrets are encrypted with a customer-managed Cloud KMS key (CMEK).

`replication.auto.customerManagedEncryption.kmsKeyName`, or with user-managed replication one
`customerManagedEncryption.kmsKeyName` per replica (each in the replica's location). Without it
Google-managed keys encrypt the payload and the key's IAM policy cannot limit who decrypts.
Twin of AP-SM-001.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str, get, mapping


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    replication = mapping(resource.get("replication"))
    if get(replication, "auto") is not None:
        if not as_str(get(replication, "auto", "customerManagedEncryption", "kmsKeyName")):
            yield "automatic replication without customerManagedEncryption.kmsKeyName: a Google-managed key " \
                  "encrypts the secret"
        return
    replicas = as_list(get(replication, "userManaged", "replicas"))
    if not replicas:
        yield "no replication with customerManagedEncryption: a Google-managed key encrypts the secret"
        return
    for index, replica in enumerate(replicas):
        if not as_str(get(replica, "customerManagedEncryption", "kmsKeyName")):
            location = as_str(get(replica, "location")) or f"replica {index}"
            yield f"replica {location} without customerManagedEncryption.kmsKeyName: a Google-managed key " \
                  "encrypts it"


RULE = Rule(
    id="AP-GSM-001",
    name="gcp-secret-customer-key",
    description="Checks whether a Secret Manager secret's replication encrypts every replica with a "
    "customer-managed KMS key.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set replication.auto.customer_managed_encryption.kms_key_name (or one per user-managed replica) "
    "and grant the Secret Manager service agent roles/cloudkms.cryptoKeyEncrypterDecrypter on the key.",
    resource_types=frozenset({t.GCP_SECRET}),
    check=check,
    categories=("encryption",),
    references=("https://cloud.google.com/secret-manager/docs/cmek",),
)
