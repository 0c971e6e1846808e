"""AP-TPU-002: a multi-host TPU node pool holds exactly one slice: its node count is the slice's VM count.

A multi-host slice is atomic: its pool has `chips in the topology ÷ chips per VM` nodes, one per VM,
in one zone (`nodeLocations` names one zone, or the pool's `location` is a zone: in a regional pool
`nodeCount` counts per zone). `nodeCount` (or `initialNodeCount`) must be that number; with `autoscaling`, the maximum
(`maxNodeCount`/`totalMaxNodeCount`) is that number and the minimum is 0 or that number (GKE scales
a multi-host slice as a whole). Any other count leaves a partial slice that never becomes ready.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from accelplane.clouds.gcp.rules.compute.tpu_slices import POOL_TYPES, Slice, at, pools, tpu_slice
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_int, as_list, as_str, get, mapping

_REGION = re.compile(r"^[a-z]+-[a-z]+\d+$")  # us-east5 (a zone is us-east5-a)


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)


def _problems(pool: Mapping[str, Any], shape: Slice) -> Iterator[str]:
    vms = shape.vms
    what = f"multi-host {shape.generation} slice {shape.topology} is {vms} VMs of {shape.machine_type}"
    zones = as_list(get(pool, "nodeLocations"))
    if len(zones) > 1:
        yield f"{what} in one zone, but nodeLocations lists {len(zones)} zones"
    elif not zones and _REGION.match(as_str(get(pool, "location"))):
        yield f"{what} in one zone, but the pool is regional without nodeLocations: nodeCount applies per zone " \
              "of the cluster"
    node_count, initial = as_int(get(pool, "nodeCount")), as_int(get(pool, "initialNodeCount"))
    autoscaling = mapping(get(pool, "autoscaling"))
    if autoscaling:
        maximum = _first(as_int(autoscaling.get("maxNodeCount")), as_int(autoscaling.get("totalMaxNodeCount")))
        minimum = _first(as_int(autoscaling.get("minNodeCount")), as_int(autoscaling.get("totalMinNodeCount")), 0)
        if maximum != vms:
            yield f"{what}, but autoscaling allows up to {maximum if maximum is not None else 'an unset maximum'}"
        if minimum not in (0, vms):
            yield f"{what}, but autoscaling keeps at least {minimum}: a partial slice"
        for name, count in (("nodeCount", node_count), ("initialNodeCount", initial)):
            if count is not None and count not in (0, vms):
                yield f"{what}, but {name} is {count}"
        return
    count = _first(node_count, initial)
    if count is None:
        yield f"{what}, but the pool sets no nodeCount"
    elif count != vms:
        yield f"{what}, but {'nodeCount' if node_count is not None else 'initialNodeCount'} is {count}"


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, pool in pools(resource):
        shape = tpu_slice(pool)
        if shape is None or not shape.multi_host:
            continue
        for problem in _problems(pool, shape):
            yield at(where, problem)


RULE = Rule(
    id="AP-TPU-002",
    name="tpu-slice-node-count",
    description="Checks whether a multi-host TPU node pool's node count (or autoscaling bounds) equals the "
    "slice's VM count, in one zone.",
    family=Family.compute,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set node_count to chips in tpu_topology ÷ chips per VM (the machine type's -<N>t), one zone in "
    "node_locations; scale by adding whole slices (node pools).",
    resource_types=POOL_TYPES,
    check=check,
    categories=("accelerators",),
    references=("https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus",),
)
