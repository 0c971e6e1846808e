"""AP-IAM-005: no role trust policy lets any principal (`*`) assume the role."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import statements, trust_document
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for statement in statements(trust_document(resource)):
        if statement.allow and statement.any_principal:
            qualifier = "even with conditions, " if statement.conditions else ""
            yield f"assumeRolePolicy: {qualifier}any principal (\"*\") may assume the role"


RULE = Rule(
    id="AP-IAM-005",
    name="iam-trust-no-wildcard-principal",
    description="Checks whether a role's trust policy names its principals instead of allowing \"*\".",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Trust one service principal, one account role ARN, or the cluster's OIDC provider.",
    resource_types=frozenset({t.IAM_ROLE}),
    check=check,
    categories=("least-privilege",),
)
