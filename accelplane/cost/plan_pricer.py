"""What a cloud's pricer builds on: the lines of an estimate (`LineItem` of priced `Part`s, a declared
`Discount`) and `PlanPricer`, which a cloud subclasses to price its own resources of an offline plan
(`preview --json`'s document) from its price table. A cloud offers its pricer, table and plan-region
reader as an `accelplane.pricing` entry point (`accelplane.cost.cloud_pricing`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import Any

from accelplane.cost.prices import PriceTable, RegionPrices

SIZES = ("minimum", "desired", "maximum")
DISCOUNT_LABEL = "accelplane.io/discount"


@dataclass(frozen=True)
class Discount:
    kind: str  # savings_plan | committed_use
    percent: float

    @classmethod
    def parse(cls, text: Any) -> Discount | None:
        """`savings_plan-28`, `committed_use-37.5` (a node label value); anything else is no discount."""
        if not isinstance(text, str):
            return None
        kind, _, percent = text.rpartition("-")
        try:
            value = float(percent)
        except ValueError:
            return None
        return cls(kind=kind, percent=value) if kind and 0 < value < 100 else None

    @property
    def factor(self) -> float:
        return 1 - self.percent / 100


@dataclass(frozen=True)
class Part:
    """One priced part of a line: `count` units at `unit_price` per `unit` (per hour or per month)."""

    what: str
    counts: tuple[float, float, float]  # minimum, desired, maximum
    unit_price: float | None
    unit: str  # "hour" or "month"
    source: str | None
    confirmed: bool = True

    def monthly(self, hours: float) -> tuple[float, float, float] | None:
        if self.unit_price is None:
            return None
        per = self.unit_price * (hours if self.unit == "hour" else 1)
        return (self.counts[0] * per, self.counts[1] * per, self.counts[2] * per)


@dataclass(frozen=True)
class LineItem:
    resource: str  # the plan's resource name (the URN's last part)
    type: str
    kind: str  # what it is, in words
    parts: tuple[Part, ...]
    pool: str | None = None
    machine: str | None = None
    nodes: tuple[int, int, int] | None = None
    pricing: str = "on-demand"  # on-demand | spot | reservation
    discount: Discount | None = None
    spot_range: tuple[float, float] | None = None  # USD per node-hour, low..high
    usage: str | None = None  # billed by usage on top, not estimated
    note: str | None = None

    def monthly(self, hours: float) -> tuple[float, float, float] | None:
        total = [0.0, 0.0, 0.0]
        for part in self.parts:
            value = part.monthly(hours)
            if value is None:
                return None
            total = [a + b for a, b in zip(total, value, strict=True)]
        factor = self.discount.factor if self.discount else 1.0
        return (round(total[0] * factor, 2), round(total[1] * factor, 2), round(total[2] * factor, 2))

    @property
    def unpriced(self) -> list[str]:
        return [part.what for part in self.parts if part.unit_price is None]


def resource_name(resource: Mapping[str, Any]) -> str:
    return str(resource.get("urn", "")).rsplit("::", 1)[-1] or str(resource.get("name", ""))


def resource_inputs(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    value = resource.get("inputs")
    return value if isinstance(value, Mapping) else {}


def as_int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


class PlanPricer:
    """Prices one cloud's resources of a plan: a cloud's `plan_pricer` returns its subclass."""

    def __init__(self, resources: Sequence[Mapping[str, Any]], prices: RegionPrices, table: PriceTable,
                 declared_desired: Mapping[str, int]) -> None:
        self.resources = resources
        self.prices = prices
        self.table = table
        # pool name -> the declaration's desired size, where the plan holds only a creation size
        self.declared_desired = declared_desired

    def service(self, key: str, what: str, counts: tuple[float, float, float], unit: str) -> Part:
        row = self.prices.services.get(key)
        return Part(what, counts, row.price if row else None, unit, row.source if row else None)

    def usage_of(self, key: str) -> str | None:
        row = self.prices.services.get(key)
        return row.usage if row else None

    def machine_part(
        self, machine: str, nodes: tuple[int, int, int], spot: bool
    ) -> tuple[Part, tuple[float, float] | None]:
        row = self.prices.hourly(machine)
        if row is None:
            why = next((reason for key, reason in self.table.unpriced.items() if fnmatch(machine, key)), None)
            what = f"{machine} (no price{': ' + why if why else ''})"
            return Part(what, node_floats(nodes), None, "hour", None), None
        if not spot:
            return Part(machine, node_floats(nodes), row.on_demand, "hour", row.source, row.confirmed), None
        snapshot = self.prices.spot.ranges.get(machine) if self.prices.spot else None
        if snapshot:
            low, high = snapshot
            source = self.prices.spot.source if self.prices.spot else None
        else:
            bounds = self.table.spot_bounds
            low, high, source = row.on_demand * bounds.low, row.on_demand * bounds.high, bounds.source
        return Part(f"{machine} spot (upper end of its range)", node_floats(nodes), round(high, 6), "hour", source,
                    row.confirmed), (round(low, 6), round(high, 6))

    def each(self, type_token: str) -> Iterable[Mapping[str, Any]]:
        return (r for r in self.resources if r.get("type") == type_token)

    def items(self) -> Iterable[LineItem]:
        """One line per billable resource of the cloud's."""
        raise NotImplementedError


def node_floats(nodes: tuple[int, int, int]) -> tuple[float, float, float]:
    return (float(nodes[0]), float(nodes[1]), float(nodes[2]))


ONE = (1.0, 1.0, 1.0)


def bucket_item(bucket: Mapping[str, Any], storage_class: str, prices: RegionPrices, service: str) -> LineItem:
    row = prices.storage_gb_month.get(storage_class)
    usage = (f"${row.price:g} per GB-month in {storage_class}, by what is stored" if row
             else f"no price for {storage_class}")
    return LineItem(resource_name(bucket), str(bucket.get("type")), f"{service} bucket", (), usage=usage,
                    note="usage-based: no fixed monthly cost")
