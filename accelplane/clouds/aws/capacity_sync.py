"""AWS's side of `accelplane capacity sync` (`accelplane.capacity_sync` entry point): each pool's bought
Capacity Block found among the account's reservations by the tag the program put on it (the offering
id), its state and dates (`DescribeCapacityReservations`), the node group's live desired size
(`DescribeNodegroup`), and the one write, `UpdateNodegroupConfig` (desired size, min 0, the pool's max).

The block's pool drains 45 minutes before its end: the EKS guide on Capacity Blocks asks for more than 30.
Not EC2 Auto Scaling scheduled actions on the node group's group: AWS refuses an action whose time has
passed and deletes a one-time action once it ran, so actions declared in the program would fail every
`pulumi up` after the block's start, and a refresh would try to re-create them in the past.

IAM: ec2:DescribeCapacityReservations, eks:DescribeNodegroup, eks:UpdateNodegroupConfig on the stack's
node groups (docs/capacity.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from accelplane.capacity.sync import CapacityLife, CapacitySync, PoolCapacity
from accelplane.cloud_support import Connection
from accelplane.clouds.aws.bought_blocks import bought_block
from accelplane.clouds.aws.capacity_block import DRAIN_BEFORE_END
from accelplane.clouds.aws.capacity_terms import TaggedTerms
from accelplane.clouds.aws.declaration import AwsNodePool, aws_platform
from accelplane.declaration import NodePool, Platform
from accelplane.errors import InputError
from accelplane.preflight.results import aware

if TYPE_CHECKING:
    from accelplane.clouds.aws.clients import AwsClients
    from accelplane.clouds.aws.preflight.calls import AwsReads

HERE = "accelplane capacity sync"
ACTIVE = "active"


def _clients(platform: Platform, connection: Connection) -> AwsClients:
    # Start-up time: the AWS clients load only for a live command.
    from accelplane.clouds.aws.connection import aws_connection
    from accelplane.clouds.aws.verify.reader import aws_clients

    settings = aws_connection(connection)
    return aws_clients(platform.region, endpoint_url=settings.endpoint_url, profile=settings.profile,
                       max_attempts=4, concurrency=1, here=HERE)


def _read(platform: Platform, connection: Connection) -> tuple[list[PoolCapacity], str]:
    # Start-up time: as _clients.
    from accelplane.clouds.aws.preflight.calls import AwsReads, UnreadableError
    from accelplane.clouds.aws.verify.reader import caller_account  # start-up time: as above

    aws = aws_platform(platform)
    clients = _clients(platform, connection)
    account = caller_account(clients, HERE)
    reads = AwsReads(clients)
    found = []
    try:
        for pool in aws.node_pools:
            block = pool.capacity.block
            if block is None:
                continue
            bought = bought_block(reads, pool.instance_type, block)
            found.append(PoolCapacity(pool, _life(bought) if bought else None, _live_size(reads, aws.name, pool)))
    except UnreadableError as failure:
        raise InputError.single(failure.why(), file=HERE, field="--stack") from None
    return found, f"account {account}, region {aws.region}"


def _life(reservation: dict[str, Any]) -> CapacityLife:
    state = str(reservation.get("State") or "unknown")
    start, end = aware(reservation.get("StartDate")), aware(reservation.get("EndDate"))
    count = int(reservation.get("TotalInstanceCount") or 0)
    terms = TaggedTerms.of({tag.get("Key"): tag.get("Value") for tag in reservation.get("Tags") or []})
    hourly = None
    if terms.upfront_usd is not None and count and isinstance(start, datetime) and isinstance(end, datetime) \
            and end > start:
        # The upfront fee the program tagged the purchase with, per machine-hour of the block's own dates.
        hourly = terms.upfront_usd / (count * (end - start).total_seconds() / 3600)
    return CapacityLife(
        what=f"capacity block {reservation.get('CapacityReservationId')} ({terms.offering})",
        state=state, active=state == ACTIVE, start=start if isinstance(start, datetime) else None,
        end=end if isinstance(end, datetime) else None, instances=count, drain_before_end=DRAIN_BEFORE_END,
        machine_hour_usd=hourly)


def _live_size(reads: AwsReads, cluster: str, pool: AwsNodePool) -> int | None:
    # Start-up time: as _clients.
    from accelplane.clouds.aws.preflight.calls import UnreadableError

    try:
        answer = reads.call("eks", "DescribeNodegroup", clusterName=cluster, nodegroupName=pool.name)
    except UnreadableError as failure:
        if failure.code == "ResourceNotFoundException":
            return None  # not created yet: `pulumi up` creates it at size 0
        raise
    return int(((answer.get("nodegroup") or {}).get("scalingConfig") or {}).get("desiredSize") or 0)


def _resize(platform: Platform, connection: Connection, pool: NodePool, size: int) -> None:
    # Start-up time: as _clients.
    from accelplane.clouds.aws.clients import API_ERRORS, describe_error

    clients = _clients(platform, connection)
    writer = clients.session.client("eks", endpoint_url=clients.endpoint_url, config=clients.config)
    try:
        writer.update_nodegroup_config(clusterName=platform.name, nodegroupName=pool.name,
                                       scalingConfig={"minSize": 0, "maxSize": pool.scaling.max, "desiredSize": size})
    except API_ERRORS as error:
        code, message = describe_error(error)
        raise InputError.single(f"eks.UpdateNodegroupConfig of {pool.name} failed: {code}: {message} (grant "
                                "eks:UpdateNodegroupConfig on the stack's node groups)", file=HERE,
                                field="--apply") from None


def _pools(platform: Platform) -> list[NodePool]:
    return [pool for pool in aws_platform(platform).node_pools if pool.capacity.block is not None]


SYNC = CapacitySync(declared_as="capacity.block", cloud="aws", pools=_pools, read=_read, resize=_resize)
