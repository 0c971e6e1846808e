"""AP-SM-004: Secrets Manager may invoke a Lambda function only for named secrets.

A permission letting `secretsmanager.amazonaws.com` invoke a function without `source_arn` lets
Secrets Manager call it on behalf of any secret, of any account: whoever can point a secret's rotation
at the function runs it with the function's role (the confused deputy problem). `source_account`
alone still admits every secret of the account.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str

_SECRETS_MANAGER = "secretsmanager.amazonaws.com"


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if as_str(resource.get("principal")) != _SECRETS_MANAGER:
        return
    if not resource.get("sourceArn"):
        scope = "any secret of this account" if resource.get("sourceAccount") else "any secret of any account"
        function = as_str(resource.get("function")) or "the function"
        yield f"Secrets Manager may invoke {function} for {scope}: set source_arn"


RULE = Rule(
    id="AP-SM-004",
    name="rotation-function-invoke-scoped",
    description="Checks whether a Lambda permission granted to Secrets Manager names the secret (source_arn) it "
    "may invoke the function for.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set source_arn to the secret's ARN on the Lambda permission (one permission per rotated secret).",
    resource_types=frozenset({t.LAMBDA_PERMISSION}),
    check=check,
    categories=("least-privilege",),
    references=(
        "https://docs.aws.amazon.com/secretsmanager/latest/userguide/rotating-secrets-required-permissions-function.html",
    ),
)
