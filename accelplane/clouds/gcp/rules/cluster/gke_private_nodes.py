"""AP-GKE-001: GKE nodes have internal IP addresses only (private nodes).

`privateClusterConfig.enablePrivateNodes` on the cluster gives every node only an internal address
(egress through Cloud NAT); a node pool may override it with `networkConfig.enablePrivateNodes`,
which must not be false. Twin of AP-EC2-004.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.cluster.gke_nodes import NODE_TYPES
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if resource.type == t.GKE_NODE_POOL:
        if as_bool(resource.get("networkConfig", "enablePrivateNodes")) is False:
            yield "networkConfig.enablePrivateNodes is false: the pool's nodes get public IP addresses"
        return
    if as_bool(resource.get("privateClusterConfig", "enablePrivateNodes")) is not True:
        yield "privateClusterConfig.enablePrivateNodes is not true: nodes get public IP addresses"


RULE = Rule(
    id="AP-GKE-001",
    name="gke-private-nodes",
    description="Checks whether a GKE cluster enables private nodes and no node pool turns them off.",
    family=Family.cluster,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Set private_cluster_config.enable_private_nodes=True (egress through Cloud NAT).",
    resource_types=NODE_TYPES,
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/latest/network-isolation",),
)
