"""TPU slice arithmetic for GKE node pools, self-contained (the rules import no configuration).

A TPU node pool's `nodeConfig.machineType` names the generation and the chips of one VM:
`<family>-<variant>-<N>t` has N chips (ct5lp-hightpu-4t: 4 v5e chips). `placementPolicy.tpuTopology`
names the slice's chips as `AxB` (v5e, v6e: 2D) or `AxBxC` (v4, v5p, TPU7x: 3D). A slice whose topology
holds more chips than one VM is multi-host: GKE builds it from `chips ÷ chips per VM` VMs, one node
each, as one atomic node pool. Only 4-chip machine types form multi-host slices; the 1- and 8-chip
types (v5e, v6e) are single-host only. (GKE documentation, "TPUs in GKE" and "Plan TPUs in GKE".)
The platform's sourced shape table lives in the configuration (accelplane/clouds/gcp/catalog.py);
these rules keep only this arithmetic, so they judge any graph, whoever wrote it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.view import Resource, as_list, as_str, get, mapping

# machine type family -> (generation, topology dimensions)
TPU_FAMILIES: dict[str, tuple[str, int]] = {
    "ct4p": ("v4", 3),
    "ct5p": ("v5p", 3),
    "ct5lp": ("v5e", 2),
    "ct6e": ("v6e", 2),
    "tpu7x": ("TPU7x", 3),
}
MULTI_HOST_CHIPS_PER_VM = 4
_MACHINE = re.compile(r"^(?P<family>[a-z0-9]+)-[a-z0-9]+-(?P<chips>\d+)t$")
_TOPOLOGY = re.compile(r"^\d+(x\d+)*$")


@dataclass(frozen=True)
class Slice:
    machine_type: str
    generation: str
    dimensions: int  # how many dimensions the generation's topologies have
    chips_per_vm: int
    topology: str  # "" when the pool declares none

    @property
    def topology_dims(self) -> tuple[int, ...] | None:
        if not _TOPOLOGY.match(self.topology):
            return None
        return tuple(int(d) for d in self.topology.split("x"))

    @property
    def chips(self) -> int | None:
        dims = self.topology_dims
        return math.prod(dims) if dims else None

    @property
    def multi_host(self) -> bool:
        chips = self.chips
        return chips is not None and chips > self.chips_per_vm

    @property
    def vms(self) -> int | None:
        chips = self.chips
        return chips // self.chips_per_vm if chips is not None and self.chips_per_vm else None


def tpu_slice(pool: Mapping[str, Any]) -> Slice | None:
    """The slice a node pool (a NodePool's props, or an inline `nodePools[]` entry) declares; None if not TPU."""
    machine = as_str(get(pool, "nodeConfig", "machineType"))
    match = _MACHINE.match(machine)
    if match is None or match.group("family") not in TPU_FAMILIES:
        return None
    generation, dimensions = TPU_FAMILIES[match.group("family")]
    return Slice(machine, generation, dimensions, int(match.group("chips")),
                 as_str(get(pool, "placementPolicy", "tpuTopology")))


def pools(resource: Resource) -> list[tuple[str, Mapping[str, Any]]]:
    """(where, pool): a NodePool itself, or each pool a cluster declares inline."""
    if resource.type == t.GKE_NODE_POOL:
        return [("", resource.props)]
    return [(f"node pool {as_str(get(pool, 'name')) or index}", mapping(pool))
            for index, pool in enumerate(as_list(resource.get("nodePools")))]


def at(where: str, text: str) -> str:
    return f"{where}: {text}" if where else text


POOL_TYPES = frozenset({t.GKE_NODE_POOL, t.GKE_CLUSTER})
