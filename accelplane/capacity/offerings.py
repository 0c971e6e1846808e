"""What capacity a pool could get, from the cloud's own offers, read-only: the facet a cloud offers
(`accelplane.capacity_offerings`) and the neutral shape of an offer.

An offer is what the cloud would sell or schedule now for the question asked (machine type, count, how
long, between which dates): a block of capacity with its id, dates and upfront price, or advice on
where and when a future reservation could start (a price where the cloud's answer gives one). Each
cloud's folder says what its offers are (docs/capacity.md lists them). Nothing is bought or reserved
here: a purchase belongs in the declaration and happens only in `pulumi up`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from accelplane.cloud_support import Connection, cloud_facet
from accelplane.declaration import NodePool, Platform

OFFERINGS_GROUP = "accelplane.capacity_offerings"


@dataclass(frozen=True)
class OfferingQuery:
    """What the pool asks for: `count` machines of its type for `hours`, starting between the two dates."""

    pool: NodePool
    count: int
    hours: int
    earliest: datetime
    latest: datetime


@dataclass(frozen=True)
class Offering:
    kind: str  # "capacity block", "future reservation (calendar mode)"
    offering_id: str | None  # what a purchase would name, or the advice's recommendation id
    zone: str
    start: datetime
    end: datetime
    machine: str
    count: int
    upfront_usd: float | None  # None: the cloud's answer names no price
    in_pool_zones: bool  # the pool's nodes can use it where they run

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600

    @property
    def per_machine_hour_usd(self) -> float | None:
        if self.upfront_usd is None or not self.count or not self.hours:
            return None
        return self.upfront_usd / (self.count * self.hours)


@dataclass(frozen=True)
class CapacityOfferings:
    """A cloud's offers for a pool (`accelplane.capacity_offerings` entry point)."""

    cloud: str
    title: str  # how messages name the cloud's offers
    # The query's bounds the cloud takes, as a problem with the query or None (durations, counts).
    query_problem: Callable[[OfferingQuery], str | None]
    # Read-only: the offers for the query, with the zones the pool's nodes use; where it looked.
    find: Callable[[Platform, OfferingQuery, Connection], tuple[list[Offering], str]]
    # How the pool declares buying an offer (the stack file's YAML under the pool), where it can.
    declaration: Callable[[Offering], str] | None = None


def offerings_of(cloud: str) -> CapacityOfferings | None:
    return cloud_facet(OFFERINGS_GROUP, cloud, CapacityOfferings)
