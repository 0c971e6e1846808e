"""AP-AUD-002: a CloudTrail trail delivers to a bucket whose log files nobody can delete early.

The bucket a trail writes to must have S3 Object Lock with a default retention in COMPLIANCE mode:
in GOVERNANCE mode a principal with `s3:BypassGovernanceRetention` can still delete a log file, and
without a default retention CloudTrail's objects are not locked at all (S3 User Guide, "Object Lock").
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    name = as_str(resource.get("s3BucketName"))
    buckets = [b for b in graph.of_type(*t.S3_BUCKETS)
               if name and name in (b.id, as_str(b.get("bucket")), as_str(get(b.outputs, "bucket")))]
    if not buckets:
        return  # a bucket outside the stack: its owner's to judge
    modes = [as_str(get(lock.get("rule") or {}, "defaultRetention", "mode"))
             for bucket in buckets for lock in graph.referring(bucket, "bucket", *t.S3_OBJECT_LOCK)]
    if "COMPLIANCE" not in modes:
        said = f"default retention in {modes[0]} mode" if modes and modes[0] else "no Object Lock default retention"
        yield (f"its log bucket {buckets[0].name} has {said}: a log file can be deleted before anyone reads it "
               "(COMPLIANCE mode: no principal can)")


RULE = Rule(
    id="AP-AUD-002",
    name="cloudtrail-bucket-locked",
    description="Checks whether the bucket a CloudTrail trail of the stack delivers to has S3 Object Lock with a "
    "default retention in COMPLIANCE mode.",
    family=Family.audit,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare audit: accelplane's trail bucket is created with Object Lock, COMPLIANCE mode, "
    "retention_days.",
    resource_types=frozenset({t.CLOUDTRAIL_TRAIL}),
    check=check,
    scope=Scope.stack,
    categories=("audit",),
    references=("https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html",),
    fix_field="audit",
    reads=t.S3_OBJECT_LOCK | t.S3_BUCKETS,
)
