"""AP-IAM-002: no service-wide action (`s3:*`, `ec2:*`) on every resource (`"Resource": "*"`)."""

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
            if not statement.allow or not statement.any_resource:
                continue
            wide = sorted({a for a in statement.actions if a.endswith(":*")})
            if wide:
                yield f"{where}: {', '.join(wide)} allowed on every resource"


RULE = Rule(
    id="AP-IAM-002",
    name="iam-no-service-wildcard-on-any-resource",
    description="Checks whether an IAM identity policy allows a whole service (e.g. s3:*) on \"Resource\": \"*\".",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Name the actions and scope Resource to the ARNs the principal works on.",
    resource_types=t.IDENTITY_POLICY_TYPES,
    check=check,
    categories=("least-privilege",),
)
