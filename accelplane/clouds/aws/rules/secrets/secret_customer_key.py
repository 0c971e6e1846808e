"""AP-SM-001: Secrets Manager secrets are encrypted with a customer-managed key."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    key = as_str(resource.get("kmsKeyId"))
    if not key or key.endswith("alias/aws/secretsmanager"):
        yield "secret uses the AWS-managed key: its readers cannot be limited by a key policy"


RULE = Rule(
    id="AP-SM-001",
    name="secret-customer-key",
    description="Checks whether a Secrets Manager secret sets kms_key_id to a customer-managed key.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set kms_key_id to the platform's secrets key.",
    resource_types=frozenset({t.SECRET}),
    check=check,
    categories=("encryption",),
)
