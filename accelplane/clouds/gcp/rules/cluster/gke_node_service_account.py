"""AP-GKE-008: GKE nodes run as a dedicated service account, never the Compute Engine default one.

Without `nodeConfig.serviceAccount` (or with `default`, or `<number>-compute@developer.gserviceaccount.com`)
nodes act as the project's default compute service account, which often holds roles/editor: every
pod that reaches the metadata server gets it. Node auto-provisioning
(`clusterAutoscaling.autoProvisioningDefaults.serviceAccount`) is judged the same way. Twin of
AP-IAM-007.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.cluster.gke_nodes import NODE_TYPES, at, node_configs
from accelplane.clouds.gcp.rules.iam.gcp_grants import is_default_compute_service_account
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str, get


def _problem(account: str) -> str | None:
    if not account:
        return "no serviceAccount: nodes run as the Compute Engine default service account"
    if is_default_compute_service_account(account):
        return f"serviceAccount {account} is the Compute Engine default service account"
    return None


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, config in node_configs(resource):
        problem = _problem(as_str(get(config, "serviceAccount")))
        if problem:
            yield at(where, problem)
    if resource.type == t.GKE_CLUSTER and as_bool(resource.get("clusterAutoscaling", "enabled")):
        problem = _problem(as_str(resource.get("clusterAutoscaling", "autoProvisioningDefaults", "serviceAccount")))
        if problem:
            yield at("node auto-provisioning", problem)


RULE = Rule(
    id="AP-GKE-008",
    name="gke-node-service-account",
    description="Checks whether GKE nodes run as a dedicated service account rather than the Compute Engine "
    "default service account.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Create a node service account with roles/container.defaultNodeServiceAccount only and set "
    "node_config.service_account to its email.",
    resource_types=NODE_TYPES,
    check=check,
    categories=("least-privilege", "identity"),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/service-accounts#default-gke-service-agent",
                "https://cloud.google.com/kubernetes-engine/docs/how-to/hardening-your-cluster#use_least_privilege_sa"),
)
