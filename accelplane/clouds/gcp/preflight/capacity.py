"""Where the pools' capacity comes from on Google Cloud: the machine type (and, for GPU pools, the
GPU model) offered in every zone of the pool (`machineTypes.get`, `acceleratorTypes.get` per zone;
a TPU slice's topology is checked against the sourced shape table when the stack is loaded), and
the reservations pools name (`reservations.get`: ready, the right machine type, enough free count,
not deleted within --min-days), and the calendar-mode future reservations pools request
(`futureReservations.get`: not declined, failed or cancelled, the terms declared, not ending within
--min-days; one not requested yet is for `pulumi up` to submit, and its pool holds no node until Google
provides it)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.future_reservation import DELIVERED, FutureReservation, utc_text
from accelplane.clouds.gcp.future_reservation_terms import RequestTerms
from accelplane.clouds.gcp.preflight.calls import get, why
from accelplane.clouds.gcp.preflight.demand import PoolDemand
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck, Status, time_left, unknown


def offering_checks(demands: list[PoolDemand], clients: GcpClients) -> list[PreflightCheck]:
    compute = clients.service("compute")
    checks = []
    for demand in demands:
        subject = f"pool {demand.name} ({demand.machine_type})"
        missing: list[str] = []
        try:
            for zone in demand.zones:
                if get(clients, compute.machineTypes().get(project=clients.project, zone=zone,
                                                           machineType=demand.machine_type)) is None:
                    missing.append(f"{demand.machine_type} in {zone}")
                if demand.unit == "GPUs" and demand.accelerator and get(clients, compute.acceleratorTypes().get(
                        project=clients.project, zone=zone, acceleratorType=demand.accelerator)) is None:
                    missing.append(f"{demand.accelerator} in {zone}")
        except GcpReadError as error:
            checks.append(unknown("offering.zone", subject, why(error), at=demand.at))
            continue
        wanted = demand.machine_type + (f" + {demand.accelerator}" if demand.unit == "GPUs" and demand.accelerator
                                        else "") + (f", topology {demand.pool.tpu_topology}"
                                                    if demand.pool.tpu_topology else "")
        needs = f"{wanted} in {', '.join(demand.zones)}"
        if missing:
            checks.append(PreflightCheck(
                "offering.zone", subject, Status.failed, f"not offered: {', '.join(missing)}", needs=needs,
                has=f"missing {len(missing)}", fix="drop the zone from the pool's zones (or gcp.zones), or choose a "
                "machine type offered there", at=demand.at))
        else:
            checks.append(PreflightCheck("offering.zone", subject, Status.passed, "offered in every zone of the pool",
                                         needs=needs, has="offered", at=demand.at))
    return checks


def reservation_checks(demands: list[PoolDemand], clients: GcpClients,
                       options: PreflightOptions) -> list[PreflightCheck]:
    compute = clients.service("compute")
    now = options.now or datetime.now(UTC)
    checks = []
    for demand in demands:
        if not demand.reservation:
            continue
        subject = f"{demand.reservation} (pool {demand.name})"
        found: tuple[str, dict] | None = None
        try:
            for zone in demand.zones:
                item = get(clients, compute.reservations().get(project=clients.project, zone=zone,
                                                               reservation=demand.reservation))
                if item is not None:
                    found = (zone, item)
                    break
        except GcpReadError as error:
            checks.append(unknown("reservation", subject, why(error), at=demand.at))
            continue
        needs = f"{demand.max_nodes}x{demand.machine_type} in {', '.join(demand.zones)}"
        if found is None:
            checks.append(_elsewhere(demand, clients, compute, needs))
            continue
        checks.append(_judge(demand, *found, now=now, min_days=options.min_days))
    return checks


def _elsewhere(demand: PoolDemand, clients: GcpClients, compute: Any, needs: str) -> PreflightCheck:
    """A reservation the pool's zones do not hold: where it is instead (a reservation is zonal), if anywhere."""
    subject = f"{demand.reservation} (pool {demand.name})"
    try:
        pages = clients.pages_aggregated(compute.reservations(), filter=f'name = "{demand.reservation}"',
                                         project=clients.project)
    except GcpReadError as error:
        return unknown("reservation", subject, why(error), at=demand.at)
    zones = sorted(zone.removeprefix("zones/") for zone, items in pages.items() if items)
    if zones:
        return PreflightCheck(
            "reservation", subject, Status.failed,
            f"reservation {demand.reservation} is in {', '.join(zones)}, not in the pool's zones "
            f"({', '.join(demand.zones)}): the pool's nodes cannot use it there", needs=needs,
            has=f"in {', '.join(zones)}", fix=f"run the pool in {zones[0]} (its zones), or reserve in "
            f"{demand.zones[0]}", at=demand.at)
    return PreflightCheck(
        "reservation", subject, Status.failed,
        f"no reservation {demand.reservation} in any zone of project {clients.project}", needs=needs, has="none",
        fix="check the name, or create the reservation (gcloud compute reservations create) before the pool",
        at=demand.at)


def _judge(demand: PoolDemand, zone: str, item: dict, *, now: datetime, min_days: int) -> PreflightCheck:
    subject = f"{demand.reservation} (pool {demand.name})"
    needs = f"{demand.max_nodes}x{demand.machine_type} in {', '.join(demand.zones)}"
    specific = item.get("specificReservation") or {}
    machine = str((specific.get("instanceProperties") or {}).get("machineType") or "")
    count, in_use = int(specific.get("count") or 0), int(specific.get("inUseCount") or 0)
    status = str(item.get("status") or "")
    delete_at = item.get("deleteAtTime")
    has = f"{status}: {count}x{machine or '?'} in {zone}, {in_use} in use" + (f", deleted at {delete_at}"
                                                                            if delete_at else "")
    problems, fixes = [], []
    if status != "READY":
        problems.append(f"the reservation is {status or 'in no state'}")
        fixes.append("wait until it is READY, or create it again")
    if machine and machine != demand.machine_type:
        problems.append(f"it reserves {machine}, the pool runs {demand.machine_type}")
        fixes.append(f"point the pool at a reservation of {demand.machine_type}")
    free = count - in_use
    if free < demand.max_nodes:
        problems.append(f"{free} of its {count} nodes are free, the pool needs {demand.max_nodes}")
        fixes.append(f"resize it to at least {in_use + demand.max_nodes} (gcloud compute reservations update "
                     f"--vm-count) or lower scaling.max")
    if delete_at:
        try:
            ends = datetime.fromisoformat(str(delete_at).replace("Z", "+00:00"))
        except ValueError:
            ends = None
        if ends is not None and (ends - now).days < min_days:
            problems.append(f"it is deleted at {ends:%Y-%m-%d %H:%M} UTC ({time_left(ends, now)}, at least "
                            f"{min_days} days wanted)")
            fixes.append("move its deletion time out, or reserve the capacity again")
    if problems:
        return PreflightCheck("reservation", subject, Status.failed, "; ".join(problems), needs=needs, has=has,
                              headroom=f"{free - demand.max_nodes} nodes", fix="; ".join(fixes), at=demand.at)
    return PreflightCheck("reservation", subject, Status.passed, "the reservation holds the pool", needs=needs,
                          has=has, headroom=f"{free - demand.max_nodes} nodes", at=demand.at)


# futureReservations.status.procurementStatus values that will never bring the machines (compute v1).
_LOST = frozenset({"DECLINED", "FAILED", "CANCELLED"})


def request_checks(demands: list[PoolDemand], clients: GcpClients,
                   options: PreflightOptions) -> list[PreflightCheck]:
    compute = clients.service("compute")
    now = options.now or datetime.now(UTC)
    checks = []
    for demand in demands:
        request = demand.pool.capacity.future_reservation
        if request is None or demand.requested is None:
            continue
        subject = f"future reservation {demand.requested} (pool {demand.name})"
        needs = (f"{request.machines}x{demand.machine_type} in {request.zone}, "
                 f"{utc_text(request.start)} to {utc_text(request.end)}")
        try:
            item = get(clients, compute.futureReservations().get(project=clients.project, zone=request.zone,
                                                                 futureReservation=demand.requested))
        except GcpReadError as error:
            checks.append(unknown("future_reservation", subject, why(error), at=demand.at))
            continue
        if item is None:
            if request.start <= now:
                checks.append(PreflightCheck(
                    "future_reservation", subject, Status.failed,
                    f"not requested, and its start {utc_text(request.start)} has passed", needs=needs, has="none",
                    fix="ask for other dates (accelplane capacity offerings) and declare them", at=demand.at))
            else:
                checks.append(PreflightCheck(
                    "future_reservation", subject, Status.passed,
                    f"not requested yet: `pulumi up` submits it for Google's review; the pool holds no node until "
                    f"Google provides it (from {utc_text(request.start)})", needs=needs, has="not requested",
                    at=demand.at))
            continue
        checks.append(_judge_request(demand, request, item, needs, subject, now=now, min_days=options.min_days))
    return checks


def _judge_request(demand: PoolDemand, request: FutureReservation, item: dict, needs: str, subject: str, *,
                   now: datetime, min_days: int) -> PreflightCheck:
    terms = RequestTerms.of(str(demand.requested), item)
    state = str((item.get("status") or {}).get("procurementStatus") or "unknown")
    has = f"{state}: {terms.machines or '?'}x{terms.machine or '?'} in {terms.zone or '?'}, {terms.dates()}"
    problems, fixes = [], []
    if state in _LOST:
        problems.append(f"Google answered {state}: the machines will not come")
        fixes.append("ask for other dates or a zone (accelplane capacity offerings), then declare a new pool name")
    declared = (request.machines, demand.machine_type, utc_text(request.start), utc_text(request.end))
    if (terms.machines, terms.machine, terms.start, terms.end) != declared:
        problems.append(f"the request holds {terms.machines}x{terms.machine}, {terms.dates()}; the declaration "
                        f"says {declared[0]}x{declared[1]}, {declared[2]} to {declared[3]}")
        fixes.append("declare what was requested (a request is never changed by `pulumi up`)")
    end = request.end
    if end <= now:
        problems.append(f"it ended {utc_text(end)}")
        fixes.append("release it from the stack (docs/capacity.md) and request new dates")
    elif (end - now).days < min_days:
        problems.append(f"it ends {utc_text(end)} ({time_left(end, now)}, at least {min_days} days wanted)")
        fixes.append("request the next dates now (accelplane capacity offerings)")
    if problems:
        return PreflightCheck("future_reservation", subject, Status.failed, "; ".join(problems), needs=needs,
                              has=has, fix="; ".join(fixes), at=demand.at)
    when = ("provided" if state in DELIVERED else
            f"{state.lower().replace('_', ' ')}; starts {utc_text(request.start)}, the pool holds no node until then")
    return PreflightCheck("future_reservation", subject, Status.passed, f"the request holds the pool ({when})",
                          needs=needs, has=has, at=demand.at)
