"""Where the pod spec and containers of each Kubernetes workload kind live, and what marks a pod.

Labels mark what a pod is for (inference, a pool), never what it may do: the one exemption from a
host-access rule is by identity (`platform_components`).
A pod is an inference pod when its template is labelled `accelplane.io/purpose: inference`, its
node selector asks for `accelplane.io/purpose: inference` nodes, or it selects (`accelplane.io/pool`)
a node pool whose purpose label is inference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.node_labels import POOL_LABEL
from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.matrix.labels import POOL_TYPES, node_labels
from accelplane.rules.view import Resource, as_list, get, mapping

PURPOSE_LABEL = "accelplane.io/purpose"
ACCELERATOR_LABEL = "accelplane.io/accelerator"
# Extended resources advertised by accelerator device plugins (and EFA).
ACCELERATOR_RESOURCES = frozenset(
    {
        "nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore",
        "aws.amazon.com/neurondevice", "google.com/tpu", "habana.ai/gaudi", "huawei.com/Ascend910",
        "huawei.com/Ascend910B", "vpc.amazonaws.com/efa",
    }
)


def pod_spec(resource: Resource) -> Mapping[str, Any]:
    path = t.K8S_POD_SPEC_PATHS.get(resource.type)
    return mapping(resource.get(*path)) if path else {}


def pod_template_metadata(resource: Resource) -> Mapping[str, Any]:
    path = t.K8S_POD_SPEC_PATHS.get(resource.type)
    if not path:
        return {}
    return mapping(resource.get(*path[:-1], "metadata")) if len(path) > 1 else mapping(resource.get("metadata"))


def labels(resource: Resource) -> dict[str, Any]:
    """Object labels and pod template labels together."""
    return {**mapping(resource.get("metadata", "labels")), **mapping(get(pod_template_metadata(resource), "labels"))}


def containers(resource: Resource) -> list[Mapping[str, Any]]:
    spec = pod_spec(resource)
    found = []
    for key in ("initContainers", "containers"):
        found.extend(c for c in as_list(get(spec, key)) if isinstance(c, Mapping))
    return found


def node_selector(resource: Resource) -> Mapping[str, Any]:
    return mapping(get(pod_spec(resource), "nodeSelector"))


def is_inference(resource: Resource, graph: ReferenceGraph | None = None) -> bool:
    """Labelled or scheduled for inference: pod labels, node selector, or the purpose label of the node
    pool its node selector names."""
    if labels(resource).get(PURPOSE_LABEL) == "inference" or node_selector(resource).get(PURPOSE_LABEL) == "inference":
        return True
    pool = node_selector(resource).get(POOL_LABEL)
    if graph is None or not isinstance(pool, str):
        return False
    return any(node_labels(group).get(PURPOSE_LABEL) == "inference"
               for group in node_groups_by_label(graph, POOL_LABEL).get(pool, []))


def node_groups_by_label(graph: ReferenceGraph, label: str) -> dict[str, list[Resource]]:
    """EKS node groups and GKE node pools indexed by the value of one of their Kubernetes labels
    (built once per graph)."""

    def build(g: ReferenceGraph) -> dict[str, list[Resource]]:
        index: dict[str, list[Resource]] = {}
        for group in g.of_type(*POOL_TYPES):
            value = node_labels(group).get(label)
            if isinstance(value, str):
                index.setdefault(value, []).append(group)
        return index

    return graph.memo(f"node-groups-by:{label}", build)


def namespace(resource: Resource) -> str:
    value = resource.get("metadata", "namespace")
    return value if isinstance(value, str) and value else "default"


def object_name(resource: Resource) -> str:
    value = resource.get("metadata", "name")
    return value if isinstance(value, str) and value else resource.name
