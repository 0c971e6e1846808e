"""AP-GIAM-003: no project-, folder- or organisation-level grants to workloads, except what GKE nodes need.

A grant on the project applies to every bucket, secret and key in it: a workload (a Workload
Identity principal) gets its access on the exact bucket and secret instead, never on the project.
Service accounts get nothing on the project either, except the GKE node service account's
documented minimum: roles/container.defaultNodeServiceAccount, or the roles it bundles (log and
metric writing, monitoring read, resource metadata and autoscaling metrics writing).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import grants, is_service_account, is_workload_identity
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

NODE_SERVICE_ACCOUNT_ROLES = frozenset(
    {
        "roles/container.defaultNodeServiceAccount",
        "roles/logging.logWriter",
        "roles/monitoring.metricWriter",
        "roles/monitoring.viewer",
        "roles/stackdriver.resourceMetadata.writer",
        "roles/autoscaling.metricsWriter",
    }
)
_LEVELS = {"projects": "project", "folder": "folder", "organizations": "organisation"}


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    level = _LEVELS.get(resource.type.split(":")[1].split("/")[0], "project")
    for grant in grants(resource):
        for member in grant.members:
            if is_workload_identity(member):
                yield grant.at(f"grants {grant.role} on the {level} level to the workload {member}: grant it on "
                               "the bucket or secret it uses")
            elif is_service_account(member) and grant.role not in NODE_SERVICE_ACCOUNT_ROLES:
                yield grant.at(f"grants {grant.role} on the {level} level to {member}: service accounts get only "
                               "the GKE node minimum there (roles/container.defaultNodeServiceAccount)")


RULE = Rule(
    id="AP-GIAM-003",
    name="gcp-iam-no-project-grants-to-workloads",
    description="Checks whether a project, folder or organisation IAM grant names a workload identity, or a "
    "service account with more than the GKE node service account's minimum roles.",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Bind workload principals on the exact bucket, secret or key; give the node service account "
    "roles/container.defaultNodeServiceAccount only.",
    resource_types=t.GCP_RESOURCE_HIERARCHY_IAM_TYPES,
    check=check,
    categories=("least-privilege",),
    references=(
        "https://cloud.google.com/kubernetes-engine/docs/how-to/hardening-your-cluster#use_least_privilege_sa",
        "https://cloud.google.com/iam/docs/understanding-roles#container.defaultNodeServiceAccount",
    ),
)
