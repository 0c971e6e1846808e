"""AP-IAM-010: no broad AWS managed policies (AdministratorAccess, PowerUserAccess, *FullAccess)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str

BROAD = frozenset({"AdministratorAccess", "PowerUserAccess", "IAMFullAccess"})


def _broad(arn: str) -> bool:
    if ":iam::aws:policy/" not in arn:
        return False
    name = arn.rsplit("/", 1)[-1]
    return name in BROAD or name.endswith("FullAccess")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    arns = [as_str(a) for a in as_list(resource.get("managedPolicyArns"))] if resource.type == t.IAM_ROLE else [
        as_str(resource.get("policyArn"))
    ]
    for arn in arns:
        if _broad(arn):
            yield f"attaches the broad AWS managed policy {arn}"


RULE = Rule(
    id="AP-IAM-010",
    name="iam-no-broad-managed-policy",
    description="Checks whether a principal gets AdministratorAccess, PowerUserAccess or a *FullAccess managed policy.",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Write a policy with the actions and ARNs the principal needs.",
    resource_types=frozenset({t.IAM_ROLE, *t.MANAGED_POLICY_ATTACHMENT_TYPES}),
    check=check,
    categories=("least-privilege",),
)
