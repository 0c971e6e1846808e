"""AP-IAM-011: no Allow statement with NotAction or NotResource: they grant everything not listed,
including actions and resources AWS adds later."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import identity_documents, statements
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, document in identity_documents(resource):
        for statement in statements(document):
            if statement.allow and statement.not_actions:
                yield f"{where}: Allow with NotAction grants every other action"
            if statement.allow and statement.not_resources:
                yield f"{where}: Allow with NotResource grants every other resource"


RULE = Rule(
    id="AP-IAM-011",
    name="iam-no-allow-not-action",
    description="Checks whether an identity policy allows through NotAction or NotResource.",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="List the allowed actions and resources; keep NotAction for Deny statements.",
    resource_types=t.IDENTITY_POLICY_TYPES,
    check=check,
    categories=("least-privilege",),
)
