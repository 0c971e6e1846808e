"""AP-S3-006: versioned checkpoint buckets age out old versions and abandoned multipart uploads.

Checkpoints are large and rewritten often; with versioning and no noncurrent-version expiry the
bucket grows without bound (and half-finished multipart uploads are billed forever).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.storage.buckets import BUCKET_TYPES, companions, is_checkpoint_bucket
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not is_checkpoint_bucket(resource):
        return
    rules = [rule for config in companions(graph, resource, t.S3_LIFECYCLE, t.S3_LIFECYCLE_V2)
             for rule in as_list(config.get("rules")) if as_str(get(rule, "status")) == "Enabled"]
    if not rules:
        yield "checkpoint bucket has no enabled lifecycle rule"
        return
    if not any(get(rule, "noncurrentVersionExpiration") for rule in rules):
        yield "no lifecycle rule expires noncurrent checkpoint versions"
    if not any(get(rule, "abortIncompleteMultipartUpload") for rule in rules):
        yield "no lifecycle rule aborts incomplete multipart uploads"


RULE = Rule(
    id="AP-S3-006",
    name="s3-checkpoint-lifecycle",
    description="Checks whether a checkpoint bucket has lifecycle rules expiring noncurrent versions and "
    "aborting incomplete multipart uploads.",
    family=Family.storage,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Add a lifecycle rule with noncurrent_expire_days and abort_multipart_days.",
    resource_types=BUCKET_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("cost", "resilience"),
)
