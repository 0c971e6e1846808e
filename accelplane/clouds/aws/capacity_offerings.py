"""AWS's capacity offers for a pool: EC2 Capacity Blocks for ML (`DescribeCapacityBlockOfferings`),
this cloud's `accelplane.capacity_offerings` entry point. Read-only: the purchase is a resource of the
declaration (`pulumi up`), never of this command.

Facts (EC2 User Guide, "Find and purchase Capacity Blocks", read 2026-12-07): durations in 1-day
increments up to 14 days and 7-day increments up to 182 days; up to 64 instances a block; up to 6
offerings per request; every block ends at 11:30 UTC. An offering's `UpfrontFee` is the whole block's
price, paid at purchase.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from accelplane.capacity.offerings import CapacityOfferings, Offering, OfferingQuery
from accelplane.cloud_support import Connection
from accelplane.clouds.aws.capacity_block import MAX_INSTANCES, duration_problem, utc_text
from accelplane.clouds.aws.declaration import aws_platform
from accelplane.declaration import Platform
from accelplane.errors import InputError
from accelplane.preflight.results import aware

if TYPE_CHECKING:
    from accelplane.clouds.aws.clients import AwsClients

HERE = "accelplane capacity offerings"


def _query_problem(query: OfferingQuery) -> str | None:
    problem = duration_problem(query.hours)
    if problem:
        return problem
    if not 1 <= query.count <= MAX_INSTANCES:
        return f"{query.count} instances: a Capacity Block holds 1 to {MAX_INSTANCES}"
    return None


def _find(platform: Platform, query: OfferingQuery, connection: Connection) -> tuple[list[Offering], str]:
    # Start-up time: the AWS clients load only for a live command.
    from accelplane.clouds.aws.connection import aws_connection
    from accelplane.clouds.aws.verify.reader import aws_clients, caller_account

    aws = aws_platform(platform)
    settings = aws_connection(connection)
    clients = aws_clients(aws.region, endpoint_url=settings.endpoint_url, profile=settings.profile, max_attempts=4,
                          concurrency=1, here=HERE)
    account = caller_account(clients, HERE)
    return offerings_with(platform, query, clients), f"account {account}, region {aws.region}"


def offerings_with(platform: Platform, query: OfferingQuery, clients: AwsClients) -> list[Offering]:
    """The offers for `query`, read with `clients` (the pool's zones from its subnets, as preflight reads them)."""
    # Start-up time: preflight's readers load only for a live command.
    from accelplane.clouds.aws.preflight.calls import AwsReads, UnreadableError
    from accelplane.clouds.aws.preflight.demand import pool_demands  # start-up time: as above

    reads = AwsReads(clients)
    demands, _ = pool_demands(aws_platform(platform), reads)
    zones = next((demand.zones for demand in demands if demand.name == query.pool.name), ())
    try:
        answer = reads.pages("ec2", "DescribeCapacityBlockOfferings", "CapacityBlockOfferings",
                             InstanceType=query.pool.instance_type, InstanceCount=query.count,
                             CapacityDurationHours=query.hours, StartDateRange=query.earliest,
                             EndDateRange=query.latest + timedelta(hours=query.hours))
    except UnreadableError as failure:
        raise InputError.single(failure.why(), file=HERE, field="--stack") from None
    return [_offering(item, zones) for item in answer]


def _offering(item: dict, zones: tuple[str, ...]) -> Offering:
    start, end = aware(item.get("StartDate")), aware(item.get("EndDate"))
    assert isinstance(start, datetime) and isinstance(end, datetime)  # botocore parses the model's timestamps
    fee = item.get("UpfrontFee")
    currency = item.get("CurrencyCode") or "USD"
    return Offering(kind="capacity block", offering_id=item.get("CapacityBlockOfferingId"),
                    zone=str(item.get("AvailabilityZone")), start=start, end=end,
                    machine=str(item.get("InstanceType")), count=int(item.get("InstanceCount") or 0),
                    upfront_usd=float(fee) if fee is not None and currency == "USD" else None,
                    in_pool_zones=not zones or item.get("AvailabilityZone") in zones)


def _declaration(offer: Offering) -> str:
    """The pool's `capacity` buying this offer (docs/capacity.md): its terms as listed, the fee as the
    approved maximum, and the approval to fill in."""
    fee = f"{offer.upfront_usd:.2f}" if offer.upfront_usd is not None else "<the fee in USD>"
    return "\n".join([
        "capacity:",
        "  type: capacity_reservation",
        "  block:",
        f"    offering_id: {offer.offering_id}",
        f"    zone: {offer.zone}",
        f"    instances: {offer.count}",
        f"    start: {utc_text(offer.start)}",
        f"    end: {utc_text(offer.end)}",
        f"    upfront_usd: {fee}",
        f"    max_upfront_usd: {fee}",
        "    approved_by: <who approves the purchase>",
        "    approved_on: <YYYY-MM-DD>",
    ])


OFFERINGS = CapacityOfferings(cloud="aws", title="EC2 Capacity Blocks for ML", query_problem=_query_problem,
                              find=_find, declaration=_declaration)
