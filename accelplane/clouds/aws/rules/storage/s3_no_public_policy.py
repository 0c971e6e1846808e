"""AP-S3-010: no bucket policy allows everyone (`"Principal": "*"`) without a narrowing condition."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import statements
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, json_document


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if resource.get("policy") is None:
        return
    for statement in statements(json_document(resource.get("policy"))):
        if statement.allow and statement.any_principal and not statement.conditions:
            yield f"policy allows {', '.join(statement.actions) or 'actions'} to everyone"


RULE = Rule(
    id="AP-S3-010",
    name="s3-no-public-policy",
    description="Checks whether a bucket policy allows any principal without a condition.",
    family=Family.storage,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Name the role ARNs that may read, or serve public content through CloudFront with OAC.",
    resource_types=frozenset({t.S3_POLICY, *t.S3_BUCKETS}),
    check=check,
    categories=("data-protection",),
)
