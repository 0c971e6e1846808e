"""The Capacity Blocks pools declare they buy (`capacity.block`): bought already — found among the
account's reservations by the offering tag the program puts on it — and in a state whose nodes can come
(scheduled, active); or not bought yet, and still offered on the declared terms, so `pulumi up` buys what
the declaration and its approval say (DescribeCapacityBlockOfferings for the pool's type, count, length
and dates). An offering sold to someone else, repriced or gone fails here, not halfway through `up`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from accelplane.clouds.aws.bought_blocks import bought_block
from accelplane.clouds.aws.capacity_block import CapacityBlock, utc_text
from accelplane.clouds.aws.preflight.calls import AwsReads, UnreadableError
from accelplane.clouds.aws.preflight.demand import PoolDemand
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck, Status, aware, time_left, unknown

CHECK = "capacity.block"
# States of a bought block whose nodes can still come (the EC2 API's CapacityReservationState).
LIVE_STATES = frozenset({"payment-pending", "scheduled", "active"})
# AWS sells a block from 30 minutes before its start (EC2 User Guide, Capacity Blocks).
LEAD = timedelta(minutes=30)


def block_checks(demands: list[PoolDemand], reads: AwsReads, options: PreflightOptions) -> list[PreflightCheck]:
    now = options.now or datetime.now(UTC)
    checks = []
    for demand in demands:
        block = demand.pool.capacity.block
        if block is None:
            continue
        subject = f"capacity block {block.offering_id} (pool {demand.name})"
        try:
            checks.append(_judge(demand, block, reads, now, subject))
        except UnreadableError as failure:
            checks.append(unknown(CHECK, subject, failure.why(), at=demand.at))
    return checks


def _judge(demand: PoolDemand, block: CapacityBlock, reads: AwsReads, now: datetime, subject: str) -> PreflightCheck:
    needs = (f"{block.instances}x{demand.instance_type} in {block.zone}, {utc_text(block.start)} to "
             f"{utc_text(block.end)}, ${block.upfront_usd:,.2f}")
    bought = bought_block(reads, demand.instance_type, block)
    if bought is not None:
        return _bought(demand, bought, now, subject, needs)
    if block.start - LEAD <= now:
        return PreflightCheck(CHECK, subject, Status.failed,
                              f"not bought, and its start {utc_text(block.start)} has passed: it can no longer "
                              "be bought",
                              needs=needs, has="not bought", fix="list current offerings (`accelplane capacity "
                              "offerings`) and declare one of them", at=demand.at)
    offers = reads.pages("ec2", "DescribeCapacityBlockOfferings", "CapacityBlockOfferings",
                         InstanceType=demand.instance_type, InstanceCount=block.instances,
                         CapacityDurationHours=int(block.hours), StartDateRange=block.start, EndDateRange=block.end)
    offer = next((o for o in offers if o.get("CapacityBlockOfferingId") == block.offering_id), None)
    if offer is None:
        return PreflightCheck(CHECK, subject, Status.failed, "not bought, and no longer offered (sold, or withdrawn)",
                              needs=needs, has=f"{len(offers)} other offering(s) for these terms",
                              fix="list current offerings (`accelplane capacity offerings`) and declare one of them "
                                  "(a new approval)", at=demand.at)
    return _offered(demand, block, offer, subject, needs)


def _bought(demand: PoolDemand, item: dict[str, Any], now: datetime, subject: str, needs: str) -> PreflightCheck:
    state = str(item.get("State"))
    start, end = aware(item.get("StartDate")), aware(item.get("EndDate"))
    when = ""
    if state == "scheduled" and isinstance(start, datetime):
        when = f", starts {utc_text(start)} ({time_left(start, now).replace(' left', '')} away)"
    elif isinstance(end, datetime):
        when = f", ends {utc_text(end)} ({time_left(end, now)})"
    has = f"bought: {item.get('CapacityReservationId')} {state}, {item.get('TotalInstanceCount')} instances{when}"
    if state in LIVE_STATES:
        return PreflightCheck(CHECK, subject, Status.passed,
                              "bought; the pool holds nodes only while it is active (`accelplane capacity sync`)",
                              needs=needs, has=has, at=demand.at)
    return PreflightCheck(CHECK, subject, Status.failed, f"the bought block is {state}: the pool gets no node from it",
                          needs=needs, has=has, fix="after its end, release it from the stack and buy another "
                          "(docs/capacity.md)", at=demand.at)


def _offered(demand: PoolDemand, block: CapacityBlock, offer: dict[str, Any], subject: str,
             needs: str) -> PreflightCheck:
    fee = float(offer.get("UpfrontFee") or 0.0)
    start, end = aware(offer.get("StartDate")), aware(offer.get("EndDate"))
    has = (f"offered: {offer.get('InstanceCount')}x{offer.get('InstanceType')} in {offer.get('AvailabilityZone')}, "
           f"{utc_text(start) if isinstance(start, datetime) else '?'} to "
           f"{utc_text(end) if isinstance(end, datetime) else '?'}, ${fee:,.2f} {offer.get('CurrencyCode') or 'USD'}")
    problems = []
    if offer.get("AvailabilityZone") != block.zone:
        problems.append(f"it is in {offer.get('AvailabilityZone')}, declared {block.zone}")
    if start != block.start or end != block.end:
        problems.append("its dates differ from the declared ones")
    if abs(fee - block.upfront_usd) >= 0.005:
        problems.append(f"its fee is ${fee:,.2f}, declared ${block.upfront_usd:,.2f}")
    if fee > block.max_upfront_usd:
        problems.append(f"above the approved maximum ${block.max_upfront_usd:,.2f}")
    if problems:
        return PreflightCheck(CHECK, subject, Status.failed, "offered on other terms: " + "; ".join(problems),
                              needs=needs, has=has, fix="declare the offering's terms as listed, with a new approval",
                              at=demand.at)
    return PreflightCheck(CHECK, subject, Status.passed, f"offered as declared: `pulumi up` buys it for ${fee:,.2f}",
                          needs=needs, has=has, at=demand.at)
