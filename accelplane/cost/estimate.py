"""The monthly estimate of an offline plan: one line per billable resource, node pools at their
minimum, desired and maximum size.

It reads the plan's resources (type token, name, inputs), the same document `preview --json`
writes, so a base and a head revision are priced alike (`diff`) and the budget rule needs nothing
but the graph. The pool's billing facts travel on the pool's own resources: the pool label, spot or
reservation (capacity type, launch template or reservation affinity) and a declared discount (node
label `accelplane.io/discount`, `kind-percent`, on both clouds: accelplane.node_labels).

Prices: `prices.PriceTable`, per hour or per month; a month is the table's `hours_per_month`. A type
or region the table lacks has no price: the line says so and the totals say how many lines are
unpriced, never treating them as 0. Spot has no single price: a pool on spot is priced at the upper
end of its range (a snapshot's highest, else the documented bound) and shows the range.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelplane.cost.cloud_pricing import cloud_pricing
from accelplane.cost.plan_pricer import SIZES, LineItem
from accelplane.cost.prices import PriceTable, RegionPrices

__all__ = ["SIZES", "Estimate", "LineItem", "estimate_plan", "plan_region"]


@dataclass(frozen=True)
class Estimate:
    cloud: str
    region: str
    table: PriceTable
    items: tuple[LineItem, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def hours(self) -> float:
        return self.table.hours_per_month

    def totals(self) -> tuple[float, float, float]:
        total = [0.0, 0.0, 0.0]
        for item in self.items:
            value = item.monthly(self.hours)
            if value is not None:
                total = [a + b for a, b in zip(total, value, strict=True)]
        return (round(total[0], 2), round(total[1], 2), round(total[2], 2))

    def unpriced(self) -> list[LineItem]:
        return [item for item in self.items if item.monthly(self.hours) is None]

    def at(self, size: str) -> float:
        return self.totals()[SIZES.index(size)]

    def by_pool(self) -> dict[str, tuple[float, float, float] | None]:
        """Monthly cost per declared pool; a pool of several node pools (TPU slices) summed."""
        pools: dict[str, tuple[float, float, float] | None] = {}
        for item in self.items:
            if item.pool is None:
                continue
            value = item.monthly(self.hours)
            known = pools.get(item.pool, (0.0, 0.0, 0.0)) if item.pool not in pools or pools[item.pool] else None
            pools[item.pool] = None if value is None or known is None else \
                (round(known[0] + value[0], 2), round(known[1] + value[1], 2), round(known[2] + value[2], 2))
        return pools


def estimate_plan(
    document: Mapping[str, Any], cloud: str, region: str, table: PriceTable,
    declared_desired: Mapping[str, int] | None = None,
) -> Estimate:
    """`document`: the plan as `preview --json` writes it (`resources`: type, urn, inputs, outputs).
    `declared_desired`: pool name -> the declaration's desired size, for a GKE pool the autoscaler
    sizes (the plan holds only the size it is created at: `initialNodeCount` per zone)."""
    resources = [r for r in document.get("resources", []) if isinstance(r, Mapping)]
    prices = table.region(region)
    notes: list[str] = []
    if prices is None:
        known = ", ".join(sorted(table.regions))
        notes.append(f"no prices for region {region} in the {cloud} table (regions: {known})")
        prices = RegionPrices()
    pricer = cloud_pricing(cloud).pricer(resources, prices, table, declared_desired or {})
    items = tuple(sorted(pricer.items(), key=lambda i: (i.pool is None, i.kind, i.resource)))
    return Estimate(cloud=cloud, region=region, table=table, items=items, notes=tuple(notes))


def plan_region(resources: Iterable[Mapping[str, Any]], cloud: str) -> str | None:
    """The region a plan's resources live in, as the cloud reads it from them."""
    return cloud_pricing(cloud).plan_region(resources)


