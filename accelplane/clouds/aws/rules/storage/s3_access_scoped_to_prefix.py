"""AP-S3-007: object access is granted on key prefixes, never on a whole bucket or every bucket.

Covers identity policies: object actions (`s3:GetObject`, `s3:PutObject`, ...) must name
`arn:aws:s3:::<bucket>/<prefix>/*`, and `s3:ListBucket` must carry an `s3:prefix` condition.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import identity_documents, statements
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

_OBJECT_ACTIONS = ("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:GetObjectVersion")


def _whole(resource_arn: str) -> bool:
    if resource_arn == "*":
        return True
    if not resource_arn.startswith("arn:aws") or ":s3:::" not in resource_arn:
        return False
    path = resource_arn.split(":s3:::", 1)[1]
    bucket, _, key = path.partition("/")
    return "*" in bucket or key in ("", "*")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, document in identity_documents(resource):
        for statement in statements(document):
            if not statement.allow:
                continue
            if any(statement.allows(a) for a in _OBJECT_ACTIONS):
                wide = [r for r in statement.resources if _whole(r)]
                if wide or statement.not_resources:
                    yield f"{where}: object actions on {', '.join(wide) or 'NotResource'}: scope them to a key prefix"
            if statement.allows("s3:ListBucket") and not any(
                "s3:prefix" in str(key).lower() for block in statement.conditions.values() if isinstance(block, dict)
                for key in block
            ):
                yield f"{where}: s3:ListBucket without an s3:prefix condition lists every key"


RULE = Rule(
    id="AP-S3-007",
    name="s3-access-scoped-to-prefix",
    description="Checks whether identity policies grant S3 object access on key prefixes and listing with an "
    "s3:prefix condition.",
    family=Family.storage,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Grant arn:aws:s3:::<bucket>/<prefix>/* and s3:ListBucket with Condition StringLike s3:prefix.",
    resource_types=t.IDENTITY_POLICY_TYPES,
    check=check,
    categories=("least-privilege",),
)
