"""A future reservation request's terms as a plan, a state export or compute's API shows them, and what
they commit to: what the approval rule (AP-CAP-002), `cost`, `preview` and `capacity sync` read. Standard
library only at import: a state or plan check loads it without the declaration's models
(`future_reservation.py` holds the declared request)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accelplane.cost.prices import RegionPrices

SOURCE = "https://cloud.google.com/compute/docs/instances/future-reservations-calendar-mode-overview"
# The start of a request's description that accelplane writes its terms into (future_reservation.py).
DESCRIPTION_HEAD = "accelplane purchase"


@dataclass(frozen=True)
class RequestTerms:
    """A request's terms as a plan, a state export or compute's API shows them (camelCase inputs)."""

    name: str
    zone: str | None
    machine: str | None
    machines: int | None
    start: str | None
    end: str | None
    approved_by: str | None
    approved_on: str | None
    max_usd: float | None

    @classmethod
    def of(cls, name: str, inputs: dict[str, Any]) -> RequestTerms:
        sku = _mapping(inputs.get("specificSkuProperties"))
        properties = _mapping(sku.get("instanceProperties"))
        window = _mapping(inputs.get("timeWindow"))
        described = _described(inputs.get("description"))
        try:
            count = int(str(sku["totalCount"])) if sku.get("totalCount") is not None else None
        except ValueError:
            count = None
        try:
            cap = float(described["max-usd"]) if "max-usd" in described else None
        except ValueError:
            cap = None
        zone = inputs.get("zone")
        return cls(name=str(inputs.get("name") or name), zone=str(zone).rsplit("/", 1)[-1] if zone else None,
                   machine=str(properties.get("machineType")) if properties.get("machineType") else None,
                   machines=count, start=_text(window.get("startTime")), end=_text(window.get("endTime")),
                   approved_by=described.get("approved-by"), approved_on=described.get("approved-on"),
                   max_usd=cap)

    @property
    def hours(self) -> float:
        """The reservation's length; 0 when its dates are not both readable."""
        try:
            span = _when(str(self.end)) - _when(str(self.start))
        except ValueError:
            return 0.0
        return span.total_seconds() / 3600

    def dates(self) -> str:
        return f"{self.start or '?'} to {self.end or '?'}"

    def region(self) -> str | None:
        return self.zone.rsplit("-", 1)[0] if self.zone and "-" in self.zone else None


def commitment_usd(terms: RequestTerms, prices: RegionPrices | None = None) -> float | None:
    """What the request commits to at on-demand list prices (machines x hours x the machine's hourly price
    in its region; `prices`: that region's, else the shipped table's): an upper bound of the calendar-mode
    bill. None where a term or the price is unknown."""
    if prices is None:
        # Start-up time: the price table loads only when a plan holds a request.
        from accelplane.cost.cloud_pricing import builtin_table

        region = terms.region()
        prices = builtin_table("gcp").region(region) if region else None
    row = prices.hourly(terms.machine) if prices is not None and terms.machine else None
    if row is None or not terms.machines or not terms.hours:
        return None
    return round(row.on_demand * terms.machines * terms.hours, 2)


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    return str(value) if value else None


def _described(description: object) -> dict[str, str]:
    """key=value pairs of an accelplane request's description; {} for any other description."""
    if not isinstance(description, str) or not description.startswith(DESCRIPTION_HEAD):
        return {}
    pairs = (part.strip().split("=", 1) for part in description.split(";")[1:])
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2}
