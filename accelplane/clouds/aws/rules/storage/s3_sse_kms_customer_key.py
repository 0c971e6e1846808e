"""AP-S3-003: buckets encrypt with SSE-KMS under a customer-managed key.

SSE-S3 (AES256) or the AWS-managed `aws/s3` key cannot be scoped by a key policy, audited per key,
or shared with only the roles that should read the data.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.storage.buckets import BUCKET_TYPES, companions
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, as_str, get

_KMS = ("aws:kms", "aws:kms:dsse")


def _defaults(rules: Any) -> list[Mapping[str, Any]]:
    out = []
    for rule in as_list(rules):
        default = get(rule, "applyServerSideEncryptionByDefault")
        if isinstance(default, Mapping):
            out.append(default)
    return out


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    defaults: list[Mapping[str, Any]] = []
    for config in companions(graph, resource, t.S3_SSE, t.S3_SSE_V2):
        defaults.extend(_defaults(config.get("rules")))
    inline = resource.get("serverSideEncryptionConfiguration", "rule")
    if inline is not None:
        defaults.extend(_defaults(inline))
    if not defaults:
        yield "bucket has no server-side encryption configuration (SSE-KMS with a customer key)"
        return
    for default in defaults:
        algorithm = as_str(get(default, "sseAlgorithm"))
        key = as_str(get(default, "kmsMasterKeyId"))
        if algorithm not in _KMS:
            yield f"bucket encrypts with {algorithm or 'no algorithm'}, not SSE-KMS"
        elif not key or key.endswith("alias/aws/s3"):
            yield "bucket uses SSE-KMS with the AWS-managed key, not a customer-managed key"


RULE = Rule(
    id="AP-S3-003",
    name="s3-sse-kms-customer-key",
    description="Checks whether a bucket's default encryption is SSE-KMS with a customer-managed key.",
    family=Family.storage,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Add BucketServerSideEncryptionConfiguration with sse_algorithm aws:kms and kms_master_key_id set "
    "to the platform's data key.",
    resource_types=BUCKET_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("encryption",),
)
