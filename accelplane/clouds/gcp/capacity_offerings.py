"""Google Cloud's capacity offers for a pool: Compute Engine's calendar-mode advice for future
reservations (`advice.calendarMode`, compute v1), this cloud's `accelplane.capacity_offerings` entry
point. The advice creates nothing: it names where (a zone) and when (start and end) a future reservation
of the pool's machine type and count could be had, within the start window and duration asked. It names
no price (calendar mode is billed per Google's Dynamic Workload Scheduler pricing, not the on-demand
list). Its authorization scopes are cloud-platform or compute (the discovery document): the command asks
for cloud-platform and may call this one method beyond reads.
"""

from __future__ import annotations

from datetime import UTC, datetime

from accelplane.capacity.offerings import CapacityOfferings, Offering, OfferingQuery
from accelplane.cloud_support import Connection
from accelplane.clouds.gcp.declaration import gcp_platform
from accelplane.clouds.gcp.future_reservation import MAX_DAYS, utc_text
from accelplane.clouds.gcp.future_reservation_terms import RequestTerms, commitment_usd
from accelplane.declaration import Platform
from accelplane.errors import InputError

HERE = "accelplane capacity offerings"
ADVICE = "compute.advice.calendarMode"
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
SPEC = "pool"  # the request's one spec key (the API takes one for now)


def _query_problem(query: OfferingQuery) -> str | None:
    if query.hours % 24 or not 24 <= query.hours <= MAX_DAYS * 24:
        return f"{query.hours} hours is not a calendar-mode duration: whole days, 1 to {MAX_DAYS}"
    if query.count < 1:
        return "ask for at least one machine"
    return None


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _find(platform: Platform, query: OfferingQuery, connection: Connection) -> tuple[list[Offering], str]:
    # Start-up time: Google's clients load only for a live command.
    import google.auth.exceptions

    from accelplane.clouds.gcp.clients import GcpClients, GcpReadError  # start-up time: as above
    from accelplane.clouds.gcp.connection import gcp_connection  # start-up time: as above
    from accelplane.clouds.gcp.credentials import credentials_problem  # start-up time: as above
    from accelplane.clouds.gcp.preflight.demand import pool_demands  # start-up time: as above

    gcp = gcp_platform(platform)
    assert gcp.gcp is not None  # a GKE declaration names its project
    settings = gcp_connection(connection)
    clients = GcpClients(gcp.gcp.project, gcp.region, endpoints=settings.api_endpoints,
                         impersonate=settings.impersonate_service_account, scope=SCOPE,
                         write_methods=frozenset({ADVICE}), max_attempts=4)
    zones = next((demand.zones for demand in pool_demands(gcp) if demand.name == query.pool.name), ())
    spec = {"targetResources": {"specificSkuResources": {"machineType": query.pool.instance_type,
                                                         "instanceCount": str(query.count)}},
            "timeRangeSpec": {"startTimeNotEarlierThan": _stamp(query.earliest),
                              "startTimeNotLaterThan": _stamp(query.latest),
                              "minDuration": f"{query.hours * 3600}s", "maxDuration": f"{query.hours * 3600}s"}}
    if zones:
        spec["locationPolicy"] = {"locations": {f"zones/{zone}": {"preference": "ALLOW"} for zone in zones}}
    try:
        answer = clients.execute(clients.service("compute").advice().calendarMode(
            project=gcp.gcp.project, region=gcp.region, body={"futureResourcesSpecs": {SPEC: spec}}))
    except google.auth.exceptions.DefaultCredentialsError as error:
        raise InputError.single(credentials_problem(error), file=HERE, field="--stack") from None
    except GcpReadError as error:
        raise InputError.single(f"{error.operation}: {error.code}: {error.message}", file=HERE,
                                field="--stack") from None
    offers = []
    for recommendation in (answer or {}).get("recommendations") or []:
        found = (recommendation.get("recommendationsPerSpec") or {}).get(SPEC) or {}
        if not found.get("location") or not found.get("startTime") or not found.get("endTime"):
            continue  # no location recommended for this spec (the API's otherLocations say why)
        zone = str(found["location"]).removeprefix("zones/")
        offers.append(Offering(kind="future reservation (calendar mode)", offering_id=found.get("recommendationId"),
                               zone=zone, start=_when(found["startTime"]), end=_when(found["endTime"]),
                               machine=query.pool.instance_type, count=query.count, upfront_usd=None,
                               in_pool_zones=not zones or zone in zones))
    return offers, f"project {gcp.gcp.project}, region {gcp.region}"


def _declaration(offer: Offering) -> str:
    """The pool's `capacity` requesting this recommendation (docs/capacity.md): its zone and dates, the
    commitment at on-demand list prices as the approved maximum, and the approval to fill in."""
    terms = RequestTerms(name="", zone=offer.zone, machine=offer.machine, machines=offer.count,
                         start=utc_text(offer.start), end=utc_text(offer.end), approved_by=None, approved_on=None,
                         max_usd=None)
    estimate = commitment_usd(terms)
    cap = f"{estimate:.2f}" if estimate is not None else "<the most you approve, in USD>"
    return "\n".join([
        "capacity:",
        "  type: capacity_reservation",
        "  future_reservation:",
        f"    zone: {offer.zone}",
        f"    machines: {offer.count}",
        f"    start: {utc_text(offer.start)}",
        f"    end: {utc_text(offer.end)}",
        f"    max_usd: {cap}",
        "    approved_by: <who approves the request>",
        "    approved_on: <YYYY-MM-DD>",
    ])


OFFERINGS = CapacityOfferings(cloud="gcp", title="calendar-mode future reservations", query_problem=_query_problem,
                              find=_find, declaration=_declaration)
