"""AP-KMS-001: symmetric customer-managed keys rotate their key material."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    spec = as_str(resource.get("customerMasterKeySpec")) or as_str(resource.get("keySpec")) or "SYMMETRIC_DEFAULT"
    if spec != "SYMMETRIC_DEFAULT":
        return  # AWS rotates only symmetric encryption keys
    if as_bool(resource.get("enableKeyRotation")) is not True:
        yield "automatic key rotation is off"


RULE = Rule(
    id="AP-KMS-001",
    name="kms-key-rotation",
    description="Checks whether a symmetric KMS key has automatic rotation enabled.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set enable_key_rotation=True (and rotation_period_in_days).",
    resource_types=frozenset({t.KMS_KEY}),
    check=check,
    categories=("encryption",),
)
