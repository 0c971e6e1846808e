"""AP-IAM-008: no IAM users (and no login profiles or user policies): people use SSO, machines roles."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

_WHAT = {
    t.IAM_USER: "an IAM user",
    t.IAM_USER_LOGIN_PROFILE: "a console password for an IAM user",
    t.IAM_USER_POLICY: "an inline policy on an IAM user",
    t.IAM_USER_POLICY_ATTACHMENT: "a policy attached to an IAM user",
}


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    yield f"declares {_WHAT[resource.type]}: long-lived identities are not allowed"


RULE = Rule(
    id="AP-IAM-008",
    name="iam-no-users",
    description="Checks whether the stack declares IAM users, their passwords or their policies.",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Use IAM Identity Center for people and roles (IRSA, instance roles) for machines.",
    resource_types=frozenset(_WHAT),
    check=check,
    categories=("identity",),
)
