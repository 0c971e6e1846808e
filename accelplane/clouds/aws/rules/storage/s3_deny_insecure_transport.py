"""AP-S3-004: a bucket policy denies every request that does not use TLS."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import Statement, matches, statements
from accelplane.clouds.aws.rules.storage.buckets import BUCKET_TYPES, companions
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, json_document


def _denies_plain_http(statement: Statement) -> bool:
    if statement.allow or not statement.any_principal:
        return False
    if not any(matches(a, "s3:GetObject") and matches(a, "s3:PutObject") for a in statement.actions):
        return False
    for operator in ("Bool", "BoolIfExists"):
        block = statement.conditions.get(operator)
        if isinstance(block, dict):
            for key, value in block.items():
                if str(key).lower() == "aws:securetransport" and [str(v).lower() for v in as_list(value)] == ["false"]:
                    return any(r == "*" or r.endswith("/*") for r in statement.resources)
    return False


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    documents = [json_document(p.get("policy")) for p in companions(graph, resource, t.S3_POLICY)]
    if resource.get("policy") is not None:
        documents.append(json_document(resource.get("policy")))
    if not any(_denies_plain_http(s) for d in documents for s in statements(d)):
        yield "no bucket policy statement denies requests with aws:SecureTransport false"


RULE = Rule(
    id="AP-S3-004",
    name="s3-deny-insecure-transport",
    description="Checks whether a bucket policy denies s3:* to everyone when aws:SecureTransport is false.",
    family=Family.storage,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Add a Deny statement: Principal \"*\", Action s3:*, the bucket and bucket/* ARNs, "
    "Condition Bool aws:SecureTransport false.",
    resource_types=BUCKET_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("encryption-in-transit",),
)
