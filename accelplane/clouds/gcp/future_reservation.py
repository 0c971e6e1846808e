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

from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from pydantic import Field, field_validator, model_validator

from accelplane.clouds.gcp.future_reservation_terms import DESCRIPTION_HEAD
from accelplane.declaration.base import Model

if TYPE_CHECKING:
    pass

MAX_DAYS = 90
# How far ahead the advice looks, per accelerator kind (calendar-mode overview).
AHEAD_DAYS = {"gpu": 60, "tpu": 120}
# Pods drain before Google reclaims the machines at the end (GKE gives no figure; the same margin as on EKS).
DRAIN_BEFORE_END = timedelta(minutes=45)
MODE = "CALENDAR"
SUBMITTED = "SUBMITTED"
# futureReservations.status.procurementStatus values after which the capacity exists (compute v1).
DELIVERED = frozenset({"FULFILLED", "FAILED_PARTIALLY_FULFILLED"})
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
