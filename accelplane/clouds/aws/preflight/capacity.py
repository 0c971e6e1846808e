"""Where the pools' capacity comes from: the instance type offered in every zone a pool uses
(DescribeInstanceTypeOfferings), EFA where a pool declares it (with the type's EFA interfaces and
network performance: the inter-node bandwidth to confirm), and the capacity reservations and
capacity blocks pools name (DescribeCapacityReservations: a capacity block is a reservation of
type `capacity-block`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from accelplane.clouds.aws.declaration import AwsNetwork
from accelplane.clouds.aws.preflight.calls import AwsReads, InstanceType, UnreadableError
from accelplane.clouds.aws.preflight.demand import PoolDemand
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck, Status, aware, time_left, unknown


def offering_checks(demands: list[PoolDemand], reads: AwsReads) -> list[PreflightCheck]:
    types = sorted({demand.instance_type for demand in demands})
    if not types:
        return []
    try:
        offered = reads.pages("ec2", "DescribeInstanceTypeOfferings", "InstanceTypeOfferings",
                              LocationType="availability-zone",
                              Filters=[{"Name": "instance-type", "Values": types}])
    except UnreadableError as failure:
        return [unknown("offering.zone", f"pool {d.name}", failure.why(), at=d.at) for d in demands]
    where: dict[str, set[str]] = {}
    for item in offered:
        where.setdefault(item["InstanceType"], set()).add(item["Location"])
    checks = []
    for demand in demands:
        zones = where.get(demand.instance_type, set())
        missing = [zone for zone in demand.zones if zone not in zones]
        subject = f"pool {demand.name} ({demand.instance_type})"
        has = f"offered in {', '.join(sorted(zones)) or 'no zone of ' + reads.region}"
        needs = f"{', '.join(demand.zones)}"
        if not missing:
            checks.append(PreflightCheck("offering.zone", subject, Status.passed,
                                         f"{demand.instance_type} is offered in every zone of the pool",
                                         needs=needs, has=has, at=demand.at))
            continue
        placed = demand.pool.placement_group
        fix = (f"the placement group keeps the pool in the first private subnet's zone ({demand.zones[0]}): list a "
               f"zone that offers {demand.instance_type} first ({', '.join(sorted(zones)) or 'none here'})"
               if placed else
               f"drop {', '.join(missing)} from the network's zones, or choose an instance type offered there")
        checks.append(PreflightCheck(
            "offering.zone", subject, Status.failed,
            f"{demand.instance_type} is not offered in {', '.join(missing)}: node group creation fails there",
            needs=needs, has=has, headroom=f"{len(missing)} zone(s) short", fix=fix, at=demand.at))
    return checks


def efa_checks(demands: list[PoolDemand], types: dict[str, InstanceType] | UnreadableError) -> list[PreflightCheck]:
    checks = []
    for demand in demands:
        if not demand.pool.efa:
            continue
        subject = f"pool {demand.name} ({demand.instance_type})"
        if isinstance(types, UnreadableError):
            checks.append(unknown("interconnect.efa", subject, types.why(), at=demand.at))
            continue
        described = types.get(demand.instance_type)
        if described is None:
            checks.append(unknown("interconnect.efa", subject, f"EC2 does not describe {demand.instance_type} here",
                                  at=demand.at))
            continue
        has = (f"EFA, {described.efa_interfaces} interfaces, {described.network}" if described.efa
               else f"no EFA, {described.network}")
        if described.efa:
            checks.append(PreflightCheck("interconnect.efa", subject, Status.passed,
                                         f"{demand.instance_type} supports EFA", needs="EFA", has=has, at=demand.at))
        else:
            checks.append(PreflightCheck("interconnect.efa", subject, Status.failed,
                                         f"{demand.instance_type} does not support EFA", needs="EFA", has=has,
                                         fix="choose an EFA-capable instance type, or set efa: false", at=demand.at))
    return checks


def reservation_checks(demands: list[PoolDemand], reads: AwsReads, options: PreflightOptions,
                       network: AwsNetwork | None = None) -> list[PreflightCheck]:
    named = [demand for demand in demands if demand.reservation_id]
    if not named:
        return []
    checks = []
    now = options.now or datetime.now(UTC)
    for demand in named:
        reservation_id = demand.reservation_id
        assert reservation_id is not None
        subject = f"{reservation_id} (pool {demand.name})"
        try:
            found = reads.call("ec2", "DescribeCapacityReservations",
                               CapacityReservationIds=[reservation_id]).get("CapacityReservations", [])
        except UnreadableError as failure:
            if failure.code.startswith("InvalidCapacityReservationId"):
                found = []
            else:
                checks.append(unknown("reservation", subject, failure.why(), at=demand.at))
                continue
        if not found:
            checks.append(PreflightCheck(
                "reservation", subject, Status.failed, f"no capacity reservation {reservation_id} in {reads.region}",
                needs=f"{demand.pool.scaling.max}x{demand.instance_type}", has="none",
                fix="check the id and region, or reserve capacity (aws ec2 create-capacity-reservation) or buy a "
                    "capacity block (aws ec2 purchase-capacity-block)", at=demand.at))
            continue
        checks.append(_judge_reservation(demand, found[0], now, options.min_days, _zone_fix(network, reads)))
    return checks


def _zone_fix(network: AwsNetwork | None, reads: AwsReads) -> Callable[[PoolDemand, str], str]:
    """What to change so the pool's nodes run in `zone`: on a new VPC, its zones; on an existing VPC, a private
    subnet of that VPC in the zone, named (DescribeSubnets), or the fact that it has none there."""

    def fix(demand: PoolDemand, zone: str) -> str:
        existing = network.existing_vpc if network is not None else None
        if existing is None:
            return (f"put the pool's first private subnet in {zone}" if demand.pool.placement_group
                    else f"add {zone} to the network's zones")
        try:
            subnets = reads.call("ec2", "DescribeSubnets", Filters=[
                {"Name": "vpc-id", "Values": [existing.vpc_id]},
                {"Name": "availability-zone", "Values": [zone]}]).get("Subnets", [])
        except UnreadableError:
            subnets = []
        ids = sorted(str(subnet["SubnetId"]) for subnet in subnets if subnet["SubnetId"] not in
                     existing.private_subnet_ids)
        where = "first in network.existing_vpc.private_subnet_ids" if demand.pool.placement_group else \
            "to network.existing_vpc.private_subnet_ids"
        if ids:
            return f"add {ids[0]} (a subnet of {existing.vpc_id} in {zone}) {where}"
        return f"{existing.vpc_id} has no other subnet in {zone}: create a private subnet there and add it {where}"

    return fix


def _judge_reservation(demand: PoolDemand, item: dict, now: datetime, min_days: int,
                       zone_fix: Callable[[PoolDemand, str], str]) -> PreflightCheck:
    reservation_id = demand.reservation_id
    kind = "capacity block" if item.get("ReservationType") == "capacity-block" else "capacity reservation"
    subject = f"{reservation_id} (pool {demand.name})"
    total = int(item.get("TotalInstanceCount") or 0)
    # What other instances (another cluster's, this stack's own already running) do not use: AWS's
    # AvailableInstanceCount (the total stays the same however many run).
    available = int(item.get("AvailableInstanceCount", total) or 0)
    state = str(item.get("State"))
    zone = str(item.get("AvailabilityZone"))
    start, end = aware(item.get("StartDate")), aware(item.get("EndDate"))
    ends = f", ends {end:%Y-%m-%d %H:%M} UTC" if isinstance(end, datetime) else ", no end date"
    starts = f", starts {start:%Y-%m-%d %H:%M} UTC" if state == "scheduled" and isinstance(start, datetime) else ""
    has = f"{kind} {state}: {available} of {total}x{item.get('InstanceType')} free in {zone}{starts}{ends}"
    needs = f"{demand.pool.scaling.max}x{demand.instance_type} in {', '.join(demand.zones)}"
    problems, fixes = [], []
    if state != "active" and not (state == "scheduled" and kind == "capacity block"):
        problems.append(f"the {kind} is {state}")
        fixes.append("reserve capacity again (an expired or cancelled reservation cannot be reactivated)")
    if item.get("InstanceType") != demand.instance_type:
        problems.append(f"it holds {item.get('InstanceType')}, the pool runs {demand.instance_type}")
        fixes.append(f"point the pool at a reservation for {demand.instance_type}")
    if demand.zones and zone not in demand.zones:
        problems.append(f"it is in {zone}, the pool's nodes are in {', '.join(demand.zones)}")
        fixes.append(zone_fix(demand, zone))
    if total < demand.pool.scaling.max:
        problems.append(f"it holds {total} instances, the pool's maximum is {demand.pool.scaling.max}")
        fixes.append(f"raise the reservation to {demand.pool.scaling.max} instances "
                     f"(aws ec2 modify-capacity-reservation --instance-count {demand.pool.scaling.max}) or lower "
                     "scaling.max")
    elif available < demand.pool.scaling.max:
        problems.append(f"{total - available} of its {total} instances are in use elsewhere: {available} free, the "
                        f"pool's maximum is {demand.pool.scaling.max}")
        fixes.append("free them (the other cluster's nodes), raise the reservation, or lower scaling.max")
    # A node group launches its desired size at once (min <= desired): with nodes wanted before the block is
    # active, their launches fail.
    if state == "scheduled" and isinstance(start, datetime) and start > now and demand.pool.scaling.desired > 0:
        problems.append(f"it starts {start:%Y-%m-%d %H:%M} UTC ({time_left(start, now).replace(' left', '')} away), "
                        f"the pool wants {demand.pool.scaling.desired} nodes before that")
        fixes.append("keep the pool at scaling.min 0 and desired 0 until the block is active (the EKS guide on "
                     "capacity blocks), then scale it up")
    if isinstance(end, datetime):
        left = end - now
        if left.total_seconds() <= 0 or left.days < min_days:
            problems.append(f"it ends {end:%Y-%m-%d %H:%M} UTC ({time_left(end, now)}, at least {min_days} days "
                            "wanted)")
            fixes.append("extend it (aws ec2 modify-capacity-reservation --end-date …) or buy the next capacity block")
    headroom = f"{available - demand.pool.scaling.max} instances"
    if problems:
        return PreflightCheck("reservation", subject, Status.failed, "; ".join(problems), needs=needs, has=has,
                              headroom=headroom, fix="; ".join(fixes), at=demand.at)
    if available < demand.most_nodes:
        return PreflightCheck(
            "reservation", subject, Status.warning,
            f"holds the pool's maximum, but not the {demand.surge} extra nodes a rolling update launches",
            needs=needs, has=has, headroom=headroom,
            fix=f"raise it to {demand.most_nodes} instances before a node update, or update with the pool scaled down",
            at=demand.at)
    # Committed capacity bills whether instances run in it or not: what stands idle now is said.
    idle = (f"; {available} of its {total} instances stand idle now, billed whether used or not"
            if state == "active" and available else "")
    return PreflightCheck("reservation", subject, Status.passed, f"the {kind} holds the pool{idle}", needs=needs,
                          has=has, headroom=headroom, at=demand.at)
