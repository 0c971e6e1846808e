"""AP-IAM-013: a role's policies together allow no privilege-escalation path.

Each document may pass AP-IAM-003 alone while two inline policies on one role combine into a path
(`iam:PassRole` in one, `ec2:RunInstances` in the other). This rule merges every inline policy and
customer-managed policy the graph attaches to the role.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.analysis import escalation_paths, merged
from accelplane.clouds.aws.rules.iam.document import identity_documents
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    documents: list[Mapping[str, Any] | None] = [d for _, d in identity_documents(resource)]
    sources = 1 if documents else 0
    for inline in graph.referring(resource, "role", t.IAM_ROLE_POLICY):
        documents.extend(d for _, d in identity_documents(inline))
        sources += 1
    for attachment in graph.referring(resource, "role", t.IAM_ROLE_POLICY_ATTACHMENT):
        for policy in graph.ref(attachment, "policyArn", t.IAM_POLICY):
            documents.extend(d for _, d in identity_documents(policy))
            sources += 1
    if sources < 2:
        return  # a single document is AP-IAM-003's
    single = {path for document in documents for path, _ in escalation_paths(document)}
    for path, actions in escalation_paths(merged(documents)):
        if path not in single:
            yield f"the role's {sources} policies together allow escalation path {path} ({' + '.join(actions)})"


RULE = Rule(
    id="AP-IAM-013",
    name="iam-role-no-combined-escalation",
    description="Checks whether the policies attached to one role together allow a privilege-escalation path.",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Split the permission-management actions onto separate roles, or scope them to named ARNs.",
    resource_types=frozenset({t.IAM_ROLE}),
    check=check,
    scope=Scope.stack,
    categories=("least-privilege", "privilege-escalation"),
)
