"""AP-GCS-003: Cloud Storage buckets encrypt new objects with a customer-managed Cloud KMS key (CMEK).

With Google-managed keys anyone with an object role reads the data; with CMEK the key's IAM policy
(`roles/cloudkms.cryptoKeyEncrypterDecrypter` for the project's Cloud Storage service agent) is a
second lock, and disabling the key cuts access. Twin of AP-S3-003.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not as_str(resource.get("encryption", "defaultKmsKeyName")):
        yield "no encryption.defaultKmsKeyName: objects are encrypted with a Google-managed key"


RULE = Rule(
    id="AP-GCS-003",
    name="gcs-customer-managed-key",
    description="Checks whether a Cloud Storage bucket sets a customer-managed default KMS key.",
    family=Family.storage,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set encryption.default_kms_key_name to the platform's storage key and grant the Cloud Storage "
    "service agent roles/cloudkms.cryptoKeyEncrypterDecrypter on it.",
    resource_types=frozenset({t.GCS_BUCKET}),
    check=check,
    categories=("encryption",),
    references=("https://cloud.google.com/storage/docs/encryption/customer-managed-keys",),
)
