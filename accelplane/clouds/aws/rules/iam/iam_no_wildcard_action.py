"""AP-IAM-001: no identity policy allows every action (`"Action": "*"`)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import identity_documents, is_full_wildcard, statements
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, document in identity_documents(resource):
        for statement in statements(document):
            if statement.allow and any(is_full_wildcard(a) for a in statement.actions):
                label = f" (Sid {statement.sid})" if statement.sid else ""
                yield f"{where}: a statement{label} allows every action (\"Action\": \"*\")"


RULE = Rule(
    id="AP-IAM-001",
    name="iam-no-wildcard-action",
    description="Checks whether an IAM identity policy allows every action with \"Action\": \"*\".",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="List the actions the principal needs (e.g. s3:GetObject), never \"*\".",
    resource_types=t.IDENTITY_POLICY_TYPES,
    check=check,
    categories=("least-privilege",),
)
