"""The Capacity Block a pool bought, found among the account's reservations: the program tags the
purchase with its offering id (`TAG_OFFERING`), and a block is a reservation of its instance type in its
zone. One lookup for `preflight` and `capacity sync`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from accelplane.clouds.aws.capacity_block import CapacityBlock
from accelplane.clouds.aws.capacity_terms import TAG_OFFERING

if TYPE_CHECKING:
    from accelplane.clouds.aws.preflight.calls import AwsReads


def _tag_value(item: dict[str, Any], key: str) -> str | None:
    return next((t.get("Value") for t in item.get("Tags") or [] if t.get("Key") == key), None)


def bought_block(reads: AwsReads, instance_type: str, block: CapacityBlock) -> dict[str, Any] | None:
    """The DescribeCapacityReservations item of the bought block, or None when it is not bought (yet)."""
    reservations = reads.pages("ec2", "DescribeCapacityReservations", "CapacityReservations",
                               Filters=[{"Name": "instance-type", "Values": [instance_type]},
                                        {"Name": "availability-zone", "Values": [block.zone]}])
    return next((r for r in reservations if _tag_value(r, TAG_OFFERING) == block.offering_id), None)
