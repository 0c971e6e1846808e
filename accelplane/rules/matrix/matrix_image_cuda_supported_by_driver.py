"""AP-VER-004: a container image's CUDA runtime is supported by the driver of the pools it runs on.

The image's CUDA version comes from the pod template label or annotation
`versions.accelplane.io/cuda`, else from the image reference (`...cuda12.8...`, `nvidia/cuda:12.8.0-...`).
Its pools come from the node selector (`accelplane.io/pool`, or `accelplane.io/accelerator`) or a
required node affinity on `accelplane.io/pool`. The version matrix decides: `incompatible` fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.node_labels import POOL_LABEL
from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import (
    containers,
    node_groups_by_label,
    node_selector,
    pod_spec,
    pod_template_metadata,
)
from accelplane.rules.matrix.labels import ACCELERATOR_LABEL, accelerator, judge, node_labels, versions
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, as_str, get, mapping

CUDA_LABEL = "versions.accelplane.io/cuda"
_NODE_KEYS = ("driver", "kernel_module", "fabric_manager", "compat_package")
_CUDA_IN_IMAGE = (re.compile(r"nvidia/cuda:(\d+\.\d+(?:\.\d+)?)"), re.compile(r"cuda-?(\d+\.\d+(?:\.\d+)?)"),
                  re.compile(r"cu(\d{2})(\d)\b"))


def image_cuda(resource: Resource) -> str | None:
    metadata = pod_template_metadata(resource)
    for source in (mapping(get(metadata, "labels")), mapping(get(metadata, "annotations"))):
        if as_str(source.get(CUDA_LABEL)):
            return as_str(source.get(CUDA_LABEL))
    for container in containers(resource):
        image = as_str(get(container, "image")).split("@", 1)[0]
        for pattern in _CUDA_IN_IMAGE:
            match = pattern.search(image)
            if match:
                return ".".join(match.groups())
    return None


def target_pools(resource: Resource, graph: ReferenceGraph) -> list[Resource]:
    selector = node_selector(resource)
    pools = {as_str(selector.get(POOL_LABEL))} - {""}
    terms = as_list(get(pod_spec(resource), "affinity", "nodeAffinity",
                        "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"))
    for term in terms:
        for expression in as_list(get(term, "matchExpressions")):
            if as_str(get(expression, "key")) == POOL_LABEL and as_str(get(expression, "operator")) == "In":
                pools.update(as_str(v) for v in as_list(get(expression, "values")))
    wanted_accelerator = as_str(selector.get(ACCELERATOR_LABEL))
    if pools:
        by_pool = node_groups_by_label(graph, POOL_LABEL)
        return [group for pool in sorted(pools) for group in by_pool.get(pool, [])]
    return node_groups_by_label(graph, ACCELERATOR_LABEL).get(wanted_accelerator, []) if wanted_accelerator else []


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    cuda = image_cuda(resource)
    if cuda is None:
        return
    for pool in target_pools(resource, graph):
        name, pinned = accelerator(pool), versions(pool)
        if name is None or "driver" not in pinned:
            continue
        # The node side of the pool (driver, kernel module, Fabric Manager, compat package) with the
        # image's CUDA; problems the pool has on its own are AP-VER-001's, so only new ones count.
        node = {"accelerator": name, **{k: v for k, v in pinned.items() if k in _NODE_KEYS}}
        _, own = judge(node, graph.as_of)
        verdict, findings = judge({**node, "cuda": cuda}, graph.as_of)
        new = [message for rule, v, message in findings if v == "incompatible" and (rule, v, message) not in own]
        if verdict == "incompatible" and new:
            yield f"image needs CUDA {cuda}; pool {as_str(node_labels(pool).get(POOL_LABEL)) or pool.name} runs " \
                  f"driver {pinned['driver']}: {'; '.join(new)}"


RULE = Rule(
    id="AP-VER-004",
    name="matrix-image-cuda-supported-by-driver",
    description="Checks whether each container image's CUDA runtime is supported by the driver of the node "
    "pools it is scheduled on.",
    family=Family.matrix,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Use an image built for the pool's CUDA (or older), or move the pool to a newer driver.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("version-matrix", "kubernetes"),
)
