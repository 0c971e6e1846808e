"""A cloud's prices, as an optional facet: its `PlanPricer`, its price table and how to read a plan's
region, offered as an `accelplane.pricing` entry point (`<cloud> = <module>:<CloudPricing>`), found by
the cloud's name. The cost layer owns this interface and its types, so a cloud without prices simply
offers no entry point: `cost` then says so (exit 2) and `preview` leaves the cost line out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from accelplane.cloud_support import entry_points_in
from accelplane.cost.plan_pricer import PlanPricer
from accelplane.cost.prices import PriceTable, load_table
from accelplane.errors import InputError

ENTRY_POINT_GROUP = "accelplane.pricing"


@dataclass(frozen=True)
class CloudPricing:
    pricer: type[PlanPricer]  # prices the cloud's resources of an offline plan
    table: Path  # the shipped price table (`accelplane.cost.prices` format), in the cloud's folder
    plan_region: Callable[[Iterable[Mapping[str, Any]]], str | None]  # the region a plan's resources live in
    # the table's service row pricing a node's disk per GB-month (a pool's `disk_gib`); None: not priced
    node_disk: str | None = None


def has_pricing(cloud: str) -> bool:
    return cloud in entry_points_in(ENTRY_POINT_GROUP)


@cache
def cloud_pricing(cloud: str) -> CloudPricing:
    point = entry_points_in(ENTRY_POINT_GROUP).get(cloud)
    if point is None:
        raise InputError.single(f"the {cloud} cloud ships no prices (no {ENTRY_POINT_GROUP} entry point)",
                                field="cloud")
    pricing = point.load()
    if not isinstance(pricing, CloudPricing):
        raise TypeError(f"entry point {point.value!r} ({ENTRY_POINT_GROUP}: {cloud}) is not a CloudPricing")
    return pricing


def table_path(cloud: str) -> Path:
    """The price table a cloud ships in its folder."""
    return cloud_pricing(cloud).table


@cache
def builtin_table(cloud: str) -> PriceTable:
    """The shipped table of a cloud, read once per process."""
    return load_table(table_path(cloud))


def table_for(cloud: str, directory: Path | None = None) -> PriceTable:
    """`directory`: a folder of refreshed tables (`prices refresh --output-dir`), else the shipped one."""
    if directory is None:
        return builtin_table(cloud)
    return load_table(directory / f"{cloud}.yaml")
