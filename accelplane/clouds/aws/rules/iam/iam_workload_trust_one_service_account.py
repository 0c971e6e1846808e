"""AP-IAM-006: a workload role (web identity through the cluster's OIDC provider) trusts exactly one
Kubernetes service account, with `StringEquals` on `sub` and on `aud` = `sts.amazonaws.com`.

`StringLike` or a wildcard in `sub` lets every service account matching the pattern (in every
namespace) take the role; without `aud` any token audience is accepted (IRSA documentation).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import condition_values, trusted_federated
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

_SUBJECT = re.compile(r"^system:serviceaccount:[a-z0-9]([-a-z0-9]*[a-z0-9])?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for statement in trusted_federated(resource):
        if not any("oidc-provider/" in p or p.startswith("oidc.") for p in statement.principals["Federated"]):
            continue
        if condition_values(statement, "StringLike", ":sub") is not None:
            yield "assumeRolePolicy: `sub` matched with StringLike: more than one service account can assume the role"
        subjects = condition_values(statement, "StringEquals", ":sub")
        if not subjects:
            yield "assumeRolePolicy: no StringEquals condition on the provider's `sub`: any service account can " \
                  "assume the role"
        elif len(subjects) != 1 or not _SUBJECT.match(subjects[0]):
            yield f"assumeRolePolicy: `sub` must be exactly one system:serviceaccount:<namespace>:<name> " \
                  f"(got {', '.join(subjects)})"
        audiences = condition_values(statement, "StringEquals", ":aud")
        if audiences != ["sts.amazonaws.com"]:
            yield f"assumeRolePolicy: `aud` must be exactly sts.amazonaws.com (got {', '.join(audiences or ['none'])})"


RULE = Rule(
    id="AP-IAM-006",
    name="iam-workload-trust-one-service-account",
    description="Checks whether a role assumed through the cluster's OIDC provider trusts exactly one service "
    "account and the STS audience.",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Condition StringEquals {\"<issuer>:sub\": \"system:serviceaccount:<ns>:<sa>\", "
    "\"<issuer>:aud\": \"sts.amazonaws.com\"}.",
    resource_types=frozenset({t.IAM_ROLE}),
    check=check,
    categories=("least-privilege", "kubernetes"),
    references=("https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html",),
)
