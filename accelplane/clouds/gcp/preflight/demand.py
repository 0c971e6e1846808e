"""What each GKE node pool asks of the project: its machine type, zones, market, and the most nodes
and accelerators it can run at once.

A multi-host TPU slice pool counts whole slices (`scaling` is slices, each `vms` nodes); every other
pool counts nodes. The most nodes add the surge of an upgrade: one node per node pool where it may
surge (max_surge 1), none in a reservation or a TPU slice (they upgrade one node down at a time;
accelplane/clouds/gcp/components/node_pool.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from accelplane.clouds.gcp import catalog
from accelplane.clouds.gcp.declaration import GcpNodePool, GcpPlatform
from accelplane.clouds.gcp.future_reservation import request_name
from accelplane.declaration import CapacityType


@dataclass(frozen=True)
class PoolDemand:
    index: int
    pool: GcpNodePool
    zones: tuple[str, ...]
    machine: catalog.MachineType | None
    vms_per_slice: int  # nodes per scaling unit (1 except multi-host TPU slices)
    platform_name: str = ""

    @property
    def name(self) -> str:
        return self.pool.name

    @property
    def machine_type(self) -> str:
        return self.pool.instance_type

    @property
    def market(self) -> str:
        return "spot" if self.pool.capacity.type is CapacityType.spot else "on_demand"

    @property
    def reservation(self) -> str | None:
        return self.pool.capacity.reservation

    @property
    def requested(self) -> str | None:
        """The calendar-mode future reservation the pool requests (its name), if any."""
        request = self.pool.capacity.future_reservation
        return request_name(self.platform_name, self.pool.name) if request is not None else None

    @property
    def surge(self) -> int:
        tight = self.reservation is not None or self.requested is not None or self.pool.tpu_topology is not None
        return 0 if tight else 1

    @property
    def max_nodes(self) -> int:
        return self.pool.scaling.max * self.vms_per_slice

    @property
    def most_nodes(self) -> int:
        return self.max_nodes + self.surge

    @property
    def accelerator(self) -> str | None:
        """The GKE accelerator label value (nvidia-h100-80gb, tpu-v5p-slice); None for CPU pools."""
        return self.machine.accelerator if self.machine else None

    @property
    def per_node(self) -> int:
        return self.machine.accelerator_count if self.machine else 0

    @property
    def unit(self) -> str:
        return "TPU chips" if self.machine and self.machine.kind == "tpu" else "GPUs"

    @property
    def at(self) -> tuple[str, int]:
        return ("node_pools", self.index)


def pool_demands(platform: GcpPlatform) -> list[PoolDemand]:
    assert platform.gcp is not None  # required on Google Cloud by the declaration checks
    demands = []
    for index, pool in enumerate(platform.node_pools):
        shape = catalog.tpu_shape(pool.instance_type, pool.tpu_topology) if pool.tpu_topology else None
        vms = shape.vms if shape is not None and shape.multi_host else 1
        request = pool.capacity.future_reservation
        zones = (request.zone,) if request is not None else tuple(pool.zones or platform.gcp.zones)
        demands.append(PoolDemand(index, pool, zones, catalog.machine_type(pool.instance_type), vms, platform.name))
    return demands
