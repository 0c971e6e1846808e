"""AP-GKE-003: Workload Identity is on: pods get Google credentials per Kubernetes service account.

`workloadIdentityConfig.workloadPool` must be `<project>.svc.id.goog` (the cluster's project when
the resource names it). Without it every pod acts as the node's service account. Twin of IRSA on
EKS (AP-IAM-006).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import GKE_POOL_SUFFIX
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if as_bool(resource.get("enableAutopilot")):
        return  # Autopilot always runs Workload Identity
    pool = as_str(resource.get("workloadIdentityConfig", "workloadPool"))
    if not pool:
        yield "Workload Identity is off (no workloadIdentityConfig.workloadPool): pods act as the node's " \
              "service account"
    elif not pool.endswith(GKE_POOL_SUFFIX):
        yield f"workloadPool {pool} is not <project>{GKE_POOL_SUFFIX}"
    else:
        project = as_str(resource.get("project"))
        if project and pool != f"{project}{GKE_POOL_SUFFIX}":
            yield f"workloadPool {pool} is not the cluster project's pool {project}{GKE_POOL_SUFFIX}"


RULE = Rule(
    id="AP-GKE-003",
    name="gke-workload-identity",
    description="Checks whether a GKE cluster enables Workload Identity with its project's pool.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set workload_identity_config.workload_pool=\"<project>.svc.id.goog\".",
    resource_types=frozenset({t.GKE_CLUSTER}),
    check=check,
    categories=("identity", "kubernetes"),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity",),
)
