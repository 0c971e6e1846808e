"""AP-IAM-004: `iam:PassRole` names the roles it may pass and the service it passes them to."""

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
            if not statement.allows("iam:PassRole"):
                continue
            wide = [r for r in statement.resources if r == "*" or r.endswith(":role/*") or r.endswith(":*")]
            if statement.not_resources or wide:
                yield f"{where}: iam:PassRole on {', '.join(wide) or 'NotResource'}: any role can be passed"
            elif not any("iam:passedtoservice" in str(k).lower() for block in statement.conditions.values()
                         if isinstance(block, dict) for k in block):
                yield f"{where}: iam:PassRole without an iam:PassedToService condition"


RULE = Rule(
    id="AP-IAM-004",
    name="iam-pass-role-scoped",
    description="Checks whether iam:PassRole is limited to named role ARNs and to one service through "
    "iam:PassedToService.",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Scope Resource to the role ARNs to pass and add Condition StringEquals iam:PassedToService.",
    resource_types=t.IDENTITY_POLICY_TYPES,
    check=check,
    categories=("least-privilege", "privilege-escalation"),
)
