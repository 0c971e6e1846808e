"""AP-GCS-008: a workload's bucket grant without an IAM condition covers the whole bucket (advisory).

A storage role (`roles/storage.*`) granted on a bucket to a workload (a Workload Identity principal
or a service account) without a condition reaches every object. The declaration may mean it
(`prefix: ""`), so the finding is advisory: it asks whether a prefix (or a managed folder) would do,
as AP-S3-007 does for S3. Conditional grants are judged by AP-GCS-007.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import grants, is_workload_principal
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for grant in grants(resource):
        if not grant.role.startswith("roles/storage.") or grant.expression:
            continue
        workloads = [m for m in grant.members if is_workload_principal(m)]
        if workloads:
            yield grant.at(f"{grant.role} for {', '.join(workloads)} has no IAM condition: it covers every object of "
                           "the bucket")


RULE = Rule(
    id="AP-GCS-008",
    name="gcs-workload-whole-bucket",
    description="Checks whether a bucket grant to a workload has no IAM condition and so covers every object.",
    family=Family.storage,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Declare the workload's prefix (the grant then carries a prefix condition) or grant on a managed "
    "folder.",
    resource_types=t.GCP_BUCKET_IAM_TYPES,
    check=check,
    categories=("least-privilege",),
    references=("https://cloud.google.com/storage/docs/access-control/iam#conditions",),
)
