"""Google Cloud's side of `accelplane capacity sync` (`accelplane.capacity_sync` entry point): each pool's
requested calendar-mode future reservation (compute `futureReservations.get`: its procurement status,
dates and count), the GKE node pool's live size as Compute Engine holds it (the target sizes of the
pool's managed instance groups, `instanceGroupManagers.get`, which is how the provider reads a pool's
node count), and the one write, `nodePools.setSize`.

Why not GKE's own scaling: the cluster autoscaler would add nodes for pending pods before the
reservation exists (the creations fail and back off) and has no notion of the reservation's end, so
the pool is not autoscaled; its size follows the reservation's life instead, checked every 15 minutes.
Nodes drain 45 minutes before the end: GKE names no margin, so the EKS guide's is kept.

IAM (each method's reference): compute.futureReservations.get, compute.instanceGroupManagers.get,
container.clusters.get (nodePools.get) and container.clusters.update (nodePools.setSize) (docs/capacity.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from accelplane.capacity.sync import CapacityLife, CapacitySync, PoolCapacity
from accelplane.cloud_support import Connection
from accelplane.clouds.gcp.declaration import GcpPlatform, gcp_platform
from accelplane.clouds.gcp.future_reservation import DELIVERED, DRAIN_BEFORE_END, request_name
from accelplane.clouds.gcp.future_reservation_terms import RequestTerms, commitment_usd
from accelplane.declaration import NodePool, Platform
from accelplane.errors import InputError

if TYPE_CHECKING:
    from accelplane.clouds.gcp.clients import GcpClients

HERE = "accelplane capacity sync"
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
SET_SIZE = "container.projects.locations.clusters.nodePools.setSize"
_MISSING = ("HTTP 404", "notFound", "NOT_FOUND")


def _clients(platform: GcpPlatform, connection: Connection, writes: frozenset[str] = frozenset()) -> GcpClients:
    # Start-up time: Google's clients load only for a live command.
    from accelplane.clouds.gcp.clients import GcpClients
    from accelplane.clouds.gcp.connection import gcp_connection

    assert platform.gcp is not None  # a GKE declaration names its project
    settings = gcp_connection(connection)
    clients = GcpClients(platform.gcp.project, platform.region, endpoints=settings.api_endpoints,
                         impersonate=settings.impersonate_service_account, max_attempts=4)
    return clients.writer(SCOPE, writes) if writes else clients


def _unreadable(error: Exception) -> InputError:
    # Start-up time: as _clients.
    import google.auth.exceptions

    from accelplane.clouds.gcp.credentials import credentials_problem  # start-up time: as above

    if isinstance(error, google.auth.exceptions.DefaultCredentialsError):
        return InputError.single(credentials_problem(error), file=HERE, field="--stack")
    return InputError.single(str(error), file=HERE, field="--stack")


def _read(platform: Platform, connection: Connection) -> tuple[list[PoolCapacity], str]:
    # Start-up time: as _clients.
    import google.auth.exceptions

    from accelplane.clouds.gcp.clients import GcpReadError  # start-up time: as above

    gcp = gcp_platform(platform)
    assert gcp.gcp is not None
    clients = _clients(gcp, connection)
    found = []
    try:
        for pool in gcp.node_pools:
            request = pool.capacity.future_reservation
            if request is None:
                continue
            name = request_name(gcp.name, pool.name)
            answer = _get(clients, clients.service("compute").futureReservations().get(
                project=gcp.gcp.project, zone=request.zone, futureReservation=name))
            found.append(PoolCapacity(pool, _life(name, answer) if answer is not None else None,
                                      _live_size(clients, gcp, pool.name)))
    except (GcpReadError, google.auth.exceptions.DefaultCredentialsError) as error:
        raise _unreadable(error) from None
    return found, f"project {gcp.gcp.project}, region {gcp.region}"


def _get(clients: GcpClients, request: Any) -> dict[str, Any] | None:
    """The resource, or None where it does not exist (not requested yet, or deleted)."""
    from accelplane.clouds.gcp.clients import GcpReadError  # start-up time: as _clients

    try:
        return clients.read(request)
    except GcpReadError as error:
        if error.code in _MISSING:
            return None
        raise


def _when(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def _life(name: str, answer: dict[str, Any]) -> CapacityLife:
    status = answer.get("status") or {}
    state = str(status.get("procurementStatus") or "unknown")
    terms = RequestTerms.of(name, answer)
    delivered = state in DELIVERED
    count = terms.machines or 0
    if state == "FAILED_PARTIALLY_FULFILLED":
        count = int(status.get("fulfilledCount") or 0)  # what Google could provide
    total = commitment_usd(terms)
    hourly = total / (terms.machines * terms.hours) if total is not None and terms.machines and terms.hours else None
    return CapacityLife(what=f"future reservation {name} ({terms.zone})", state=state, active=delivered,
                        start=_when(terms.start), end=_when(terms.end), instances=count,
                        drain_before_end=DRAIN_BEFORE_END, machine_hour_usd=hourly)


def _pool_path(platform: GcpPlatform, pool: str) -> str:
    assert platform.gcp is not None
    return f"projects/{platform.gcp.project}/locations/{platform.region}/clusters/{platform.name}/nodePools/{pool}"


def _live_size(clients: GcpClients, platform: GcpPlatform, pool: str) -> int | None:
    assert platform.gcp is not None
    found = _get(clients, clients.service("container").projects().locations().clusters().nodePools().get(
        name=_pool_path(platform, pool)))
    if found is None:
        return None  # not created yet: `pulumi up` creates it empty
    size = 0
    for url in found.get("instanceGroupUrls") or []:
        # .../projects/P/zones/Z/instanceGroupManagers/NAME
        parts = str(url).split("/")
        zone, manager = parts[parts.index("zones") + 1], parts[-1]
        group = _get(clients, clients.service("compute").instanceGroupManagers().get(
            project=platform.gcp.project, zone=zone, instanceGroupManager=manager))
        size += int((group or {}).get("targetSize") or 0)
    return size


def _resize(platform: Platform, connection: Connection, pool: NodePool, size: int) -> None:
    from accelplane.clouds.gcp.clients import GcpReadError  # start-up time: as _clients

    gcp = gcp_platform(platform)
    clients = _clients(gcp, connection, frozenset({SET_SIZE}))
    try:
        clients.execute(clients.service("container").projects().locations().clusters().nodePools().setSize(
            name=_pool_path(gcp, pool.name), body={"nodeCount": size}))
    except GcpReadError as error:
        raise InputError.single(f"nodePools.setSize of {pool.name} failed: {error.code}: {error.message} (grant "
                                "container.clusters.update on the stack's cluster)", file=HERE,
                                field="--apply") from None


def _pools(platform: Platform) -> list[NodePool]:
    return [pool for pool in gcp_platform(platform).node_pools if pool.capacity.future_reservation is not None]


SYNC = CapacitySync(declared_as="capacity.future_reservation", cloud="gcp", pools=_pools, read=_read, resize=_resize)
