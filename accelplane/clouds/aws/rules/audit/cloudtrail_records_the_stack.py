"""AP-AUD-001: a prod AWS stack keeps a CloudTrail trail that records who changed or read its data,
keys and secrets, and that a deleted or edited log file would show.

Judged on the stack's EKS cluster (every AWS stack has one): in prod, a trail of the stack must exist,
be logging, cover every region (IAM and an attacker's other regions included), validate its log files
(digest files), encrypt them with a KMS key, and record the data events (object reads and writes) of
the stack's model-artifact and checkpoint buckets. Management events, Secrets Manager's reads among
them, are recorded by every trail whose selectors keep them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import About, Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get

RECORDED_ROLES = ("model_artifacts", "checkpoints")
ROLE_TAG = "accelplane.io/bucket-role"


def _recorded_prefixes(trail: Resource) -> tuple[bool, list[str]]:
    """(management events kept, S3 object ARN prefixes whose data events are kept)."""
    management, prefixes = False, []
    for selector in as_list(trail.get("advancedEventSelectors")):
        fields = {as_str(get(f, "field")): f for f in as_list(get(selector, "fieldSelectors"))
                  if isinstance(f, Mapping)}
        category = [as_str(v) for v in as_list(get(fields.get("eventCategory") or {}, "equals"))]
        if "Management" in category:
            management = True
        types = [as_str(v) for v in as_list(get(fields.get("resources.type") or {}, "equals"))]
        if "Data" in category and "AWS::S3::Object" in types:
            prefixes += [as_str(v) for v in as_list(get(fields.get("resources.ARN") or {}, "startsWiths"))]
    if not as_list(trail.get("advancedEventSelectors")):
        management = True  # no selectors: CloudTrail's default, every management event
    return management, prefixes


def _problems(trail: Resource, buckets: list[tuple[str, str]]) -> Iterator[str]:
    if as_bool(trail.get("enableLogging")) is False:
        yield "logging is stopped"
    if as_bool(trail.get("isMultiRegionTrail")) is not True:
        yield "it records one region only"
    if as_bool(trail.get("enableLogFileValidation")) is not True:
        yield "log file validation is off (a deleted or edited log file would not show)"
    if not as_str(trail.get("kmsKeyId")):
        yield "its log files are not encrypted with a KMS key"
    management, prefixes = _recorded_prefixes(trail)
    if not management:
        yield "it keeps no management events (who changed a key or read a secret)"
    for role, arn in buckets:
        if not any(f"{arn}/".startswith(prefix) for prefix in prefixes):
            yield f"it records no object reads and writes of the {role} bucket"


def _arn(bucket: Resource) -> str:
    """The bucket's ARN from what the engine knows of it (a state's or stack analysis's props, the recorded
    outputs, its name); "" while unknown."""
    name = as_str(bucket.get("bucket")) or as_str(get(bucket.outputs, "bucket"))
    return as_str(bucket.get("arn")) or as_str(get(bucket.outputs, "arn")) or (f"arn:aws:s3:::{name}" if name else "")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str | About]:
    if graph.environment != "prod":
        return
    trails = graph.of_type(t.CLOUDTRAIL_TRAIL)
    if not trails:
        yield ("prod stack without a CloudTrail trail: who changed the model's weights, a secret or a key is recorded "
               "nowhere the stack keeps")
        return
    # Buckets whose ARN is known (a preview knows none before they exist: then nothing to compare).
    buckets = [(role, arn) for bucket in graph.of_type(*t.S3_BUCKETS)
               if (role := as_str(get(bucket.get("tags") or {}, ROLE_TAG))) in RECORDED_ROLES
               and (arn := _arn(bucket))]
    for trail in trails:
        problems = list(_problems(trail, buckets))
        if problems:
            yield About(trail, f"CloudTrail trail {trail.name}: {'; '.join(problems)}")


RULE = Rule(
    id="AP-AUD-001",
    name="cloudtrail-records-the-stack",
    description="Checks whether a prod AWS stack has a multi-Region CloudTrail trail, logging, with log file "
    "validation and KMS encryption, recording management events and its model and checkpoint buckets' data events.",
    family=Family.audit,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare audit (retention_days, readers): accelplane builds the trail, its KMS key and an Object "
    "Lock bucket.",
    resource_types=frozenset({t.EKS_CLUSTER}),
    check=check,
    scope=Scope.stack,
    categories=("audit",),
    references=("https://docs.aws.amazon.com/awscloudtrail/latest/userguide/logging-data-events-with-cloudtrail.html",
                "https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-log-file-validation-intro.html"),
    fix_field="audit",
    reads=frozenset({t.CLOUDTRAIL_TRAIL, *t.S3_BUCKETS}),
)
