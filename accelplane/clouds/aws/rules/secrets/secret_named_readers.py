"""AP-SM-002: each secret has a resource policy, and only named roles are allowed to read it.

Without a resource policy any principal of the account whose IAM policy allows
`secretsmanager:GetSecretValue` on `*` reads the secret; with `*` or an account root as principal,
the policy delegates the decision again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import statements
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, json_document

_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[A-Za-z0-9+=,.@_/-]+$")
_READS = ("secretsmanager:GetSecretValue",)


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    documents = [json_document(p.get("policy")) for p in graph.referring(resource, "secretArn", t.SECRET_POLICY)]
    if resource.get("policy") is not None:
        documents.append(json_document(resource.get("policy")))
    if not documents:
        yield "secret has no resource policy naming its readers"
        return
    readers = 0
    for statement in (s for d in documents for s in statements(d)):
        if not statement.allow or not any(statement.allows(a) for a in _READS):
            continue
        readers += 1
        principals = [p for kind, values in statement.principals.items() for p in values if kind != "Service"]
        loose = [p for p in principals if not _ROLE_ARN.match(p)]
        if statement.any_principal or loose:
            yield f"read access granted to {', '.join(loose or ['*'])}: name workload role ARNs only"
    if readers == 0:
        yield "secret policy names no reader role"


RULE = Rule(
    id="AP-SM-002",
    name="secret-named-readers",
    description="Checks whether each secret has a resource policy that allows reading to named role ARNs only.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Attach a SecretPolicy allowing secretsmanager:GetSecretValue to the workload role ARNs that "
    "list the secret.",
    resource_types=frozenset({t.SECRET}),
    check=check,
    scope=Scope.stack,
    categories=("least-privilege",),
)
