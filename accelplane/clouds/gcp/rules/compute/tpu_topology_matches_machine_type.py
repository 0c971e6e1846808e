"""AP-TPU-003: a TPU node pool's topology fits its machine type.

The topology has the generation's dimensions (`AxB` for v5e and v6e, `AxBxC` for v4, v5p and
TPU7x), at least the chips of one VM and a whole number of VMs. A multi-host topology needs a 4-chip
machine type: the 1- and 8-chip types (ct5lp-hightpu-1t/-8t, ct6e-standard-1t/-8t) are single-host
only, so such a pool must not declare a topology bigger than its VM.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp.rules.compute.tpu_slices import MULTI_HOST_CHIPS_PER_VM, POOL_TYPES, at, pools, tpu_slice
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, pool in pools(resource):
        shape = tpu_slice(pool)
        if shape is None or not shape.topology:
            continue
        dims, chips = shape.topology_dims, shape.chips
        if dims is None or chips is None:
            yield at(where, f"tpuTopology {shape.topology!r} is not a topology like 2x4 or 2x2x2")
            continue
        if len(dims) != shape.dimensions:
            yield at(where, f"{shape.generation} topologies have {shape.dimensions} dimensions, {shape.topology} "
                            f"has {len(dims)}")
        if chips < shape.chips_per_vm:
            yield at(where, f"tpuTopology {shape.topology} ({chips} chips) is smaller than one {shape.machine_type} "
                            f"VM ({shape.chips_per_vm} chips)")
        elif chips % shape.chips_per_vm:
            yield at(where, f"tpuTopology {shape.topology} ({chips} chips) is not a whole number of "
                            f"{shape.chips_per_vm}-chip VMs")
        elif shape.multi_host and shape.chips_per_vm != MULTI_HOST_CHIPS_PER_VM:
            yield at(where, f"single-host machine type {shape.machine_type} declares the multi-host topology "
                            f"{shape.topology}: multi-host slices use -{MULTI_HOST_CHIPS_PER_VM}t machine types")


RULE = Rule(
    id="AP-TPU-003",
    name="tpu-topology-matches-machine-type",
    description="Checks whether a TPU node pool's tpuTopology has the generation's dimensions, a whole number of "
    "VMs, and is single-host for single-host machine types.",
    family=Family.compute,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Pick the topology from the platform's TPU shape table for the machine type (e.g. ct5lp-hightpu-8t: "
    "2x4; ct5lp-hightpu-4t: 2x2 single-host or 4x4 and up multi-host).",
    resource_types=POOL_TYPES,
    check=check,
    categories=("accelerators",),
    references=("https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus",
                "https://cloud.google.com/tpu/docs/v5e",
                "https://cloud.google.com/tpu/docs/v6e"),
)
