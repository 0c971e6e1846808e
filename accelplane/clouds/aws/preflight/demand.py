"""What each EKS node pool asks of the account: its instance type, market, zones, and the most
nodes it can run at once.

The most is the pool's maximum size plus the surge of a rolling update: EKS raises the Auto
Scaling group's maximum and desired size by the larger of twice the number of Availability Zones
the group spans and the update's maxUnavailable (1 here), "Scale up phase" in
https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html. A pool in a
cluster placement group lives in the zone of the first private subnet (the component keeps it
there), so it spans one zone.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelplane.clouds.aws.declaration import AwsNodePool, AwsPlatform
from accelplane.clouds.aws.preflight.calls import AwsReads, UnreadableError
from accelplane.declaration import CapacityType
from accelplane.preflight.results import PreflightCheck, unknown

MAX_UNAVAILABLE = 1  # the node groups' update_config (components/node_pool.py)


@dataclass(frozen=True)
class PoolDemand:
    index: int  # position in node_pools (the stack-file line)
    pool: AwsNodePool
    zones: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.pool.name

    @property
    def instance_type(self) -> str:
        return self.pool.instance_type

    @property
    def market(self) -> str:
        return "spot" if self.pool.capacity.type is CapacityType.spot else "on_demand"

    @property
    def reservation_id(self) -> str | None:
        return self.pool.capacity.reservation_id

    @property
    def surge(self) -> int:
        return max(2 * max(1, len(self.zones)), MAX_UNAVAILABLE)

    @property
    def most_nodes(self) -> int:
        return self.pool.scaling.max + self.surge

    @property
    def at(self) -> tuple[str, int]:
        return ("node_pools", self.index)


def pool_demands(platform: AwsPlatform, reads: AwsReads) -> tuple[list[PoolDemand], list[PreflightCheck]]:
    zones, problems = _private_subnet_zones(platform, reads)
    demands = []
    for index, pool in enumerate(platform.node_pools):
        pool_zones = zones[:1] if pool.placement_group else zones
        if pool.capacity.block is not None:
            pool_zones = [pool.capacity.block.zone]  # a block's instances launch in its zone only
        demands.append(PoolDemand(index, pool, tuple(pool_zones)))
    return demands, problems


def _private_subnet_zones(platform: AwsPlatform, reads: AwsReads) -> tuple[list[str], list[PreflightCheck]]:
    network = platform.network
    if network.new_vpc is not None:
        return list(network.new_vpc.availability_zones), []
    assert network.existing_vpc is not None  # the declaration requires one of the two on AWS
    ids = list(network.existing_vpc.private_subnet_ids)
    try:
        subnets = reads.call("ec2", "DescribeSubnets", SubnetIds=ids).get("Subnets", [])
    except UnreadableError as failure:
        return [], [unknown("offering.zone", "existing private subnets", failure.why(),
                            at=("network", "existing_vpc", "private_subnet_ids"))]
    zone_of = {subnet["SubnetId"]: subnet["AvailabilityZone"] for subnet in subnets}
    return [zone_of[subnet] for subnet in ids if subnet in zone_of], []
