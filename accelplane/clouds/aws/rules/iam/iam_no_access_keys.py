"""AP-IAM-009: no IAM access keys: static credentials leak and never expire."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    yield "declares a static IAM access key (its secret ends up in the Pulumi state)"


RULE = Rule(
    id="AP-IAM-009",
    name="iam-no-access-keys",
    description="Checks whether the stack creates IAM access keys.",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Use roles with short-lived credentials (IRSA for pods, OIDC federation for CI).",
    resource_types=frozenset({t.IAM_ACCESS_KEY}),
    check=check,
    categories=("identity", "secrets"),
)
