"""AP-TPU-001: a multi-host TPU slice node pool has COMPACT placement and a topology.

GKE forms a multi-host slice only from a pool with `placementPolicy.type: COMPACT` and
`placementPolicy.tpuTopology`: without COMPACT the VMs are not placed on one interconnect (ICI), and a
COMPACT TPU pool without a topology describes no slice at all.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp.rules.compute.tpu_slices import POOL_TYPES, at, pools, tpu_slice
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, pool in pools(resource):
        shape = tpu_slice(pool)
        if shape is None:
            continue
        placement = as_str(get(pool, "placementPolicy", "type"))
        if shape.multi_host and placement != "COMPACT":
            yield at(where, f"multi-host {shape.generation} slice {shape.topology} ({shape.vms} VMs of "
                            f"{shape.machine_type}) has placementPolicy.type {placement or 'unset'}, not COMPACT")
        if placement == "COMPACT" and not shape.topology:
            yield at(where, f"COMPACT {shape.generation} pool without placementPolicy.tpuTopology: the slice's "
                            "shape is undefined")


RULE = Rule(
    id="AP-TPU-001",
    name="tpu-multi-host-compact-placement",
    description="Checks whether a multi-host TPU node pool sets placementPolicy.type COMPACT and a tpuTopology.",
    family=Family.compute,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set placement_policy {type: \"COMPACT\", tpu_topology: \"<topology>\"} on the TPU node pool.",
    resource_types=POOL_TYPES,
    check=check,
    categories=("accelerators",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/tpus#multi-host",),
)
