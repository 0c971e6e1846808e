"""AP-GCS-007: a bucket grant to a workload that is limited by an IAM condition is limited to a key prefix.

Twin of AP-S3-007 for Cloud Storage, judged on what the graph shows: a workload limited to a prefix
(the declaration's `prefix`) gets a storage role (`roles/storage.*`) on the bucket with a condition,
and that condition must really limit object names to a non-empty prefix of that bucket:

    resource.name.startsWith("projects/_/buckets/<bucket>/objects/<prefix>")

Listing is checked against the bucket, not an object: a condition that admits listing must limit
the listed prefix too (`api.getAttribute("storage.googleapis.com/objectListPrefix", "")` with a
non-empty prefix), and one that admits `resource.type == "storage.googleapis.com/Bucket"` without
such a limit lets the workload list every key. A grant without any condition is the whole bucket,
as the declaration may say (`prefix: ""`): AP-GCS-008 reports it. A grant on a managed folder
(`…/managedFolderIam…`) is prefix-scoped by construction and is not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import Grant, grants, is_workload_principal
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str

_OBJECT_PREFIX = re.compile(
    r"""resource\.name\.startsWith\(\s*(["'])projects/_/buckets/(?P<bucket>[^/"']+)/objects/(?P<prefix>[^"']*)\1\s*\)"""
)
_BUCKET_TYPE = re.compile(r"""resource\.type\s*==\s*(["'])storage\.googleapis\.com/Bucket\1""")
_LIST_PREFIX = re.compile(
    r"""api\.getAttribute\(\s*(["'])storage\.googleapis\.com/objectListPrefix\1\s*,\s*(["'])\2\s*\)\s*"""
    r"""\.startsWith\(\s*(["'])(?P<prefix>[^"']*)\3\s*\)"""
)


def _problems(grant: Grant, bucket: str) -> Iterator[str]:
    expression = grant.expression
    scopes = list(_OBJECT_PREFIX.finditer(expression))
    if not scopes:
        yield "condition does not limit resource.name to projects/_/buckets/<bucket>/objects/<prefix>"
    for scope in scopes:
        if not scope.group("prefix"):
            yield "condition's object prefix is empty: it covers every object of the bucket"
        if bucket and scope.group("bucket") != bucket:
            yield f"condition names the bucket {scope.group('bucket')}, the grant is on {bucket}"
    listed = [m.group("prefix") for m in _LIST_PREFIX.finditer(expression)]
    if not all(listed):
        yield "condition's objectListPrefix is empty: the workload lists every key"
    elif _BUCKET_TYPE.search(expression) and not listed:
        yield "condition admits the bucket itself without an objectListPrefix limit: the workload lists every key"


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    bucket = as_str(resource.get("bucket")).removeprefix("b/")
    for grant in grants(resource):
        if not grant.role.startswith("roles/storage."):
            continue
        workloads = [m for m in grant.members if is_workload_principal(m)]
        if not workloads or not grant.expression:
            continue
        for problem in _problems(grant, bucket):
            yield grant.at(f"{grant.role} for {', '.join(workloads)} {problem}")


RULE = Rule(
    id="AP-GCS-007",
    name="gcs-workload-prefix-condition",
    description="Checks whether a conditional bucket grant to a workload limits object names and listing to a "
    "non-empty key prefix of that bucket.",
    family=Family.storage,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Use the condition expression resource.name.startsWith(\"projects/_/buckets/<bucket>/objects/"
    "<prefix>\") || api.getAttribute(\"storage.googleapis.com/objectListPrefix\", \"\").startsWith(\"<prefix>\").",
    resource_types=t.GCP_BUCKET_IAM_TYPES,
    check=check,
    categories=("least-privilege",),
    references=("https://cloud.google.com/storage/docs/access-control/iam#conditions",
                "https://cloud.google.com/iam/docs/conditions-resource-attributes#resource-name"),
)
