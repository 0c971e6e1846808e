"""AP-GKE-009: GKE node pools run the GKE metadata server (`workloadMetadataConfig.mode: GKE_METADATA`).

With GKE_METADATA pods get their own Workload Identity credentials and never the node's;
GCE_METADATA exposes the node's service account and the instance metadata (kubelet credentials
included) to every pod. The pool sets it explicitly, so a change of the cluster's defaults cannot
change it. Twin of AP-EC2-002 (IMDS hop limit).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp.rules.cluster.gke_nodes import NODE_TYPES, at, node_configs
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, config in node_configs(resource):
        mode = as_str(get(config, "workloadMetadataConfig", "mode"))
        if mode != "GKE_METADATA":
            yield at(where, f"workloadMetadataConfig.mode is {mode or 'not set'}, not GKE_METADATA: pods can reach "
                            "the node's credentials")


RULE = Rule(
    id="AP-GKE-009",
    name="gke-metadata-server",
    description="Checks whether every GKE node configuration sets workloadMetadataConfig.mode GKE_METADATA.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set node_config.workload_metadata_config.mode=\"GKE_METADATA\" on every node pool.",
    resource_types=NODE_TYPES,
    check=check,
    categories=("identity", "kubernetes"),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity#option_2_node_pool_modification",),
)
