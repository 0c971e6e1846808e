"""A Compute Engine future reservation in calendar mode a GKE pool buys: the zone and dates the
calendar-mode advice (`accelplane capacity offerings`) recommended, how many machines, the most the
buyer accepts to pay, and who approved the purchase on which day.

It is requested by `pulumi up` only (the program's `gcp.compute.FutureReservation`, mode CALENDAR,
submitted for Google's review), never twice: the resource ignores later changes of what was requested
and is protected from deletion. Google provisions a reservation of the same name at the start; the
pool consumes it by name (specific reservation affinity), only in the reservation's zone, and holds no
node outside its dates (`accelplane capacity sync` sizes it with the reservation's life).

Facts (Compute Engine, "About future reservation requests in calendar mode" and "Create a future
reservation request in calendar mode", read 2026-12-07): GPU and TPU VMs (and H4D) for 1 to 90 days,
starting up to 60 days ahead for GPUs and 120 for TPUs; Google reviews the request and, once approved,
provisions the capacity at the start time; it bills for the reserved resources for the whole period at
Dynamic Workload Scheduler prices, used or not. The advice names no price: the commitment is estimated
at the on-demand list price (an upper bound) and the approval caps it. A request needs the quota of what
it reserves: without it Google is likely to decline it, or delivers part or none of it at the start
(Compute Engine, "Create shared future reservation requests", "Before you begin"), so preflight counts
the pool against the on-demand quota.

Terms ride in the resource's `description` (the provider marks it immutable, so it is fixed at the
request; a future reservation has no labels): `accelplane purchase; approved-by=…; approved-on=…;
max-usd=…`, which the approval rule reads back from a plan, a state export or the live request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator, model_validator

from accelplane.declaration.base import Model

if TYPE_CHECKING:
    from accelplane.cost.prices import RegionPrices

MAX_DAYS = 90
# How far ahead the advice looks, per accelerator kind (calendar-mode overview).
AHEAD_DAYS = {"gpu": 60, "tpu": 120}
# Pods drain before Google reclaims the machines at the end (GKE gives no figure; the same margin as on EKS).
DRAIN_BEFORE_END = timedelta(minutes=45)
SOURCE = "https://cloud.google.com/compute/docs/instances/future-reservations-calendar-mode-overview"
MODE = "CALENDAR"
SUBMITTED = "SUBMITTED"
# futureReservations.status.procurementStatus values after which the capacity exists (compute v1).
DELIVERED = frozenset({"FULFILLED", "FAILED_PARTIALLY_FULFILLED"})
DESCRIPTION_HEAD = "accelplane purchase"
# The inputs that say what was requested: the provider replaces the request on `name` and `description`
# (immutable in magic-modules' FutureReservation.yaml) and sends the others as an amendment Google
# reviews again; the program ignores changes of all of them once requested, and AP-CAP-002 refuses them.
REQUEST_TERMS = ("name", "zone", "description", "reservationMode", "reservationName", "specificSkuProperties",
                 "timeWindow")


def request_name(platform: str, pool: str) -> str:
    """The request's name, and the reservation's Google provisions from it: one per stack and pool."""
    return f"{platform}-{pool}"


def utc_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FutureReservation(Model):
    zone: str = Field(pattern=r"^[a-z]+-[a-z]+[0-9]+-[a-z]$",
                      description="The zone the advice recommended: the pool's nodes run there only.")
    machines: int = Field(ge=1, le=1000, description="VMs of the pool's machine type to reserve.")
    start: datetime = Field(description="Start of the reservation, UTC (e.g. 2026-12-21T00:00:00Z).")
    end: datetime = Field(description="End of the reservation, UTC: whole days after start, 1 to 90.")
    max_usd: float = Field(gt=0, description="The most the reservation may cost, approved (AP-CAP-003 compares the "
                                             "estimate at on-demand list prices).")
    approved_by: str | None = Field(
        default=None, min_length=3, max_length=128, pattern=r"^[\w .:/=+\-@]+$",
        description="Who approved the request (a name or address); without it AP-CAP-003 refuses the plan.",
    )
    approved_on: date | None = Field(default=None, description="The day the request was approved (YYYY-MM-DD).")

    @field_validator("start", "end")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        offset = value.utcoffset()
        if offset is None or offset.total_seconds() != 0:
            raise ValueError("expected a UTC time ending in Z, as the advice lists it")
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _terms(self) -> FutureReservation:
        if self.end <= self.start:
            raise ValueError("end must be after start")
        if self.hours % 24 or not 24 <= self.hours <= MAX_DAYS * 24:
            raise ValueError(f"{self.hours:g} hours is not a calendar-mode reservation: whole days, 1 to {MAX_DAYS}")
        if (self.approved_by is None) != (self.approved_on is None):
            raise ValueError("approved_by and approved_on go together: who approved the request, and when")
        return self

    @property
    def hours(self) -> float:
        return (self.end - self.start).total_seconds() / 3600

    def description(self) -> str:
        parts = [DESCRIPTION_HEAD]
        if self.approved_by and self.approved_on:
            parts += [f"approved-by={self.approved_by}", f"approved-on={self.approved_on.isoformat()}"]
        parts.append(f"max-usd={self.max_usd:.2f}")
        return "; ".join(parts)


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
