"""AP-VER-003: pools in one training group (label `accelplane.io/group`) share driver, runtime and NCCL.

Ranks of one job on pools with different NCCL or CUDA versions fail at the first collective, or
silently fall back to slower transports.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.matrix.labels import GROUP_LABEL, POOL_TYPES, node_labels, versions
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str

SHARED = ("driver", "kernel_module", "amdgpu_kmd", "neuron_sdk", "gaudi_sw", "cann", "cuda", "rocm",
          "rocm_userspace", "nccl", "nccl_package", "aws_ofi_nccl", "efa_installer")


def _by_group(graph: ReferenceGraph) -> dict[str, list[Resource]]:
    index: dict[str, list[Resource]] = defaultdict(list)
    for node_group in graph.of_type(*POOL_TYPES):
        index[as_str(node_labels(node_group).get(GROUP_LABEL))].append(node_group)
    return index


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    group = as_str(node_labels(resource).get(GROUP_LABEL))
    if not group:
        return
    mine = versions(resource)
    for other in graph.memo("node-groups-by-group", _by_group).get(group, []):
        if other.urn == resource.urn:
            continue
        theirs = versions(other)
        differ = [f"{k} {mine.get(k, 'unset')} vs {theirs.get(k, 'unset')}" for k in SHARED
                  if mine.get(k) != theirs.get(k)]
        if differ:
            yield f"group {group}: differs from {other.name}: {'; '.join(differ)}"


RULE = Rule(
    id="AP-VER-003",
    name="matrix-group-shares-versions",
    description="Checks whether node pools of one group pin the same driver, runtime and NCCL versions.",
    family=Family.matrix,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Give the pools of a group one software profile (or profiles with equal driver/runtime/NCCL).",
    resource_types=POOL_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("version-matrix",),
    fix_field="software_profile",  # the pool's or group's choice of profile: where its versions are picked
)
