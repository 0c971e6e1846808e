"""AP-KMS-002: no key policy lets any principal (`*`) use or manage the key.

The only accepted form is the one AWS itself uses for account-scoped access: `*` narrowed by
`kms:CallerAccount`, `aws:PrincipalAccount` or `aws:PrincipalOrgID`.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import statements
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, json_document

_ACCOUNT_KEYS = ("kms:calleraccount", "aws:principalaccount", "aws:principalorgid")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if resource.get("policy") is None:
        return
    for statement in statements(json_document(resource.get("policy"))):
        if not statement.allow or not statement.any_principal:
            continue
        keys = [str(k).lower() for block in statement.conditions.values() if isinstance(block, dict) for k in block]
        if not any(k in _ACCOUNT_KEYS for k in keys):
            yield f"key policy allows {', '.join(statement.actions) or 'actions'} to any principal"


RULE = Rule(
    id="AP-KMS-002",
    name="kms-no-wildcard-principal",
    description="Checks whether a KMS key policy allows \"*\" principals without an account condition.",
    family=Family.secrets,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Grant the account root (delegating to IAM) or named role ARNs.",
    resource_types=frozenset({t.KMS_KEY, t.KMS_KEY_POLICY}),
    check=check,
    categories=("encryption", "least-privilege"),
)
