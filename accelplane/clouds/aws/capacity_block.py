"""An EC2 Capacity Block for ML a pool buys: the offering `accelplane capacity offerings` listed, named
by its id and its own terms (zone, count, start, end, upfront fee), the most the buyer accepts to pay,
and who approved the purchase on which day.

A block is bought by `pulumi up` only (the program's `aws.ec2.CapacityBlockReservation`), never twice:
the resource ignores later changes of the offering and is protected from deletion, as AWS neither
cancels nor refunds a block (the provider would only forget it). The pool consumes it through a launch
template with market type `capacity-block` and the node group's capacity type `CAPACITY_BLOCK`, and
holds no node outside it (`accelplane capacity sync` sizes it with the block's life).

Facts (EC2 User Guide, "Capacity Blocks for ML" and "Find and purchase Capacity Blocks", read
2026-12-07): a block holds 1 to 64 instances of one type in one Availability Zone, lasts whole days up
to 14 days, then whole weeks up to 182 days, and ends at 11:30 UTC; its upfront fee is paid at purchase.
EKS user guide, "Create a managed node group with Capacity Blocks for ML": a custom launch template
naming the instance type, `InstanceMarketOptions.MarketType: capacity-block` and the reservation as
target; scale the group to zero more than 30 minutes before the block ends.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from pydantic import Field, field_validator, model_validator

from accelplane.clouds.aws.capacity_terms import (
    TAG_APPROVED_BY,
    TAG_APPROVED_ON,
    TAG_END,
    TAG_MAX_UPFRONT,
    TAG_OFFERING,
    TAG_START,
    TAG_UPFRONT,
)
from accelplane.declaration.base import Model

MAX_INSTANCES = 64
DAY_HOURS, WEEK_HOURS, MAX_HOURS = 24, 168, 182 * 24
# Every block ends at 11:30 UTC (EC2 User Guide); its start is the same time of day.
BLOCK_TIME_OF_DAY = (11, 30)
# The EKS guide's "more than 30 minutes before the end", with a margin for a slow drain.
DRAIN_BEFORE_END = timedelta(minutes=45)

def duration_problem(hours: float) -> str | None:
    """Why `hours` is not a Capacity Block's length, or None."""
    whole = int(hours)
    if whole != hours or whole % DAY_HOURS or not DAY_HOURS <= whole <= MAX_HOURS or (
        whole > 14 * DAY_HOURS and whole % WEEK_HOURS
    ):
        return (f"{hours:g} hours is not a Capacity Block duration: whole days up to 14 days (24 to 336 hours), "
                f"then whole weeks up to 182 days ({MAX_HOURS} hours)")
    return None


def utc_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class CapacityBlock(Model):
    offering_id: str = Field(
        pattern=r"^cb-[0-9a-z]{8,17}$",
        description="The offering to buy (CapacityBlockOfferingId, as `accelplane capacity offerings` lists it).",
    )
    zone: str = Field(min_length=1, description="The offering's Availability Zone: the pool's nodes run there only.")
    instances: int = Field(ge=1, le=MAX_INSTANCES, description="Instances the offering holds (1 to 64).")
    start: datetime = Field(description="The offering's start, UTC (e.g. 2026-12-21T11:30:00Z).")
    end: datetime = Field(description="The offering's end, UTC (11:30 UTC).")
    upfront_usd: float = Field(gt=0, description="The offering's upfront fee in USD: the whole block's price.")
    max_upfront_usd: float = Field(gt=0, description="The most the purchase may cost (AP-CAP-001 refuses above).")
    approved_by: str | None = Field(
        default=None, min_length=3, max_length=128, pattern=r"^[\w .:/=+\-@]+$",
        description="Who approved the purchase (a name or address); without it AP-CAP-001 refuses the plan.",
    )
    approved_on: date | None = Field(default=None, description="The day the purchase was approved (YYYY-MM-DD).")
    subnet_id: str | None = Field(
        default=None, pattern=r"^subnet-[0-9a-f]{8,17}$",
        description="With an existing VPC: the private subnet in the block's zone the nodes use.",
    )

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        offset = value.utcoffset()
        if offset is None or offset.total_seconds() != 0:
            raise ValueError("expected a UTC time ending in Z, as the offering lists it")
        if (value.hour, value.minute, value.second) != (*BLOCK_TIME_OF_DAY, 0):
            raise ValueError("a Capacity Block starts and ends at 11:30 UTC: copy the offering's time")
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _terms(self) -> CapacityBlock:
        if self.end <= self.start:
            raise ValueError("end must be after start")
        problem = duration_problem((self.end - self.start).total_seconds() / 3600)
        if problem:
            raise ValueError(problem)
        if (self.approved_by is None) != (self.approved_on is None):
            raise ValueError("approved_by and approved_on go together: who approved the purchase, and when")
        return self

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600

    def drain_at(self) -> datetime:
        return self.end - DRAIN_BEFORE_END

    def tags(self) -> dict[str, str]:
        """The purchase's terms as tags of the reservation (AWS tag values allow these characters)."""
        tags = {
            TAG_OFFERING: self.offering_id,
            TAG_START: utc_text(self.start),
            TAG_END: utc_text(self.end),
            TAG_UPFRONT: f"{self.upfront_usd:.2f}",
            TAG_MAX_UPFRONT: f"{self.max_upfront_usd:.2f}",
        }
        if self.approved_by and self.approved_on:
            tags[TAG_APPROVED_BY] = self.approved_by
            tags[TAG_APPROVED_ON] = self.approved_on.isoformat()
        return tags
