"""AP-GIAM-004: no service-account keys: a key is a long-lived credential that ends up in the state."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    yield "declares a service-account key (its private key ends up in the Pulumi state and never expires)"


RULE = Rule(
    id="AP-GIAM-004",
    name="gcp-iam-no-service-account-keys",
    description="Checks whether the stack creates GCP service-account keys.",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Use Workload Identity for pods and Workload Identity Federation for CI; drop the key.",
    resource_types=frozenset({t.GCP_SERVICE_ACCOUNT_KEY}),
    check=check,
    categories=("identity", "secrets"),
    references=("https://cloud.google.com/iam/docs/best-practices-for-managing-service-account-keys",),
)
