"""AP-GKE-006: GKE nodes are Shielded VMs with Secure Boot and integrity monitoring.

On the cluster `enableShieldedNodes` (default true) must not be false; on every node configuration
(node pools, the default pool) `shieldedInstanceConfig.enableSecureBoot` must be true (the default is
false) and `enableIntegrityMonitoring` not false. Secure Boot refuses unsigned boot components and
kernel modules, so a rootkit cannot persist on a node.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.cluster.gke_nodes import NODE_TYPES, at, node_configs
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if resource.type == t.GKE_CLUSTER and as_bool(resource.get("enableShieldedNodes")) is False:
        yield "enableShieldedNodes is false: nodes are not Shielded VMs"
    for where, config in node_configs(resource):
        if as_bool(get(config, "shieldedInstanceConfig", "enableSecureBoot")) is not True:
            yield at(where, "shieldedInstanceConfig.enableSecureBoot is not true: nodes boot unverified components")
        if as_bool(get(config, "shieldedInstanceConfig", "enableIntegrityMonitoring")) is False:
            yield at(where, "shieldedInstanceConfig.enableIntegrityMonitoring is false")


RULE = Rule(
    id="AP-GKE-006",
    name="gke-shielded-nodes",
    description="Checks whether GKE nodes are Shielded VMs with Secure Boot on and integrity monitoring not off.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set node_config.shielded_instance_config {enable_secure_boot: True, "
    "enable_integrity_monitoring: True} on every node pool.",
    resource_types=NODE_TYPES,
    check=check,
    categories=("node-integrity",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/shielded-gke-nodes",),
)
