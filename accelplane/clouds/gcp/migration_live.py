"""A migration's weighted record set on Cloud DNS, live: read its weights, and set them in one change.

Cloud DNS's API (the `dns` v1 discovery document): `resourceRecordSets.list` restricted to the name
(`name=`, fully qualified with its dot) finds the record set whose `routingPolicy.wrr` the migration
stack declares; `changes.create` with the record set as read in `deletions` and the same set with new
weights in `additions` is one change. Cloud DNS applies a change whole, and refuses it (412, "Precondition
not met") when a deletion is not exactly what the zone holds: an abort never leaves one end moved and the
other not, and a record edited by hand since the read is never overwritten.

A weighted-round-robin item carries no identifier (unlike a Route 53 `SetIdentifier`): the items are the
ends in the order the program declares them, source first (`migration_dns._declare`), and a change here
keeps each item where it is and alters only its `weight`. A record set with another number of items is
not the migration's, and is refused rather than guessed at. Weights are doubles; they are read as each
end's share of their sum, in whole percent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.dns_zone import ZONE
from accelplane.migration.facets import LiveDnsError, LiveRecords

# Reading needs Cloud DNS's read-only scope; the change, its read-write scope (Google's OAuth 2.0 scopes
# for the Cloud DNS API).
READ_SCOPE = "https://www.googleapis.com/auth/ndev.clouddns.readonly"
WRITE_SCOPE = "https://www.googleapis.com/auth/ndev.clouddns.readwrite"
CHANGE = "dns.changes.create"


def _clients(records: LiveRecords, scope: str) -> tuple[GcpClients, str, str]:
    match = ZONE.fullmatch(records.zone)
    assert match is not None  # the declaration's checks refuse any other form
    settings = gcp_connection(records.connection)
    clients = GcpClients(match["project"], "global", endpoints=settings.api_endpoints,
                         impersonate=settings.impersonate_service_account, scope=scope,
                         write_methods=frozenset({CHANGE}) if scope == WRITE_SCOPE else frozenset(), max_attempts=4)
    return clients, match["project"], match["zone"]


def _call(what: str, run: Any) -> Any:
    # Start-up time: google-auth's errors and the credential messages load for a live command only.
    import google.auth.exceptions

    from accelplane.clouds.gcp.credentials import credentials_problem  # start-up time: as above

    try:
        return run()
    except google.auth.exceptions.DefaultCredentialsError as error:
        raise LiveDnsError(credentials_problem(error)) from None
    except GcpReadError as error:
        raise LiveDnsError(f"Cloud DNS refused {what}: {error.code}: {error.message}") from None


def _record_set(records: LiveRecords, clients: GcpClients, project: str, zone: str) -> dict[str, Any]:
    """The name's weighted record set, with exactly one item per end."""
    name = records.hostname.rstrip(".") + "."
    sets = _call(f"the records of {records.hostname} in zone {records.zone}", lambda: clients.pages(
        clients.service("dns").resourceRecordSets(), "rrsets", project=project, managedZone=zone, name=name))
    weighted = [found for found in sets
                if found.get("name") == name and ((found.get("routingPolicy") or {}).get("wrr") or {}).get("items")]
    if not weighted:
        raise LiveDnsError(f"zone {records.zone} has no weighted record set of {records.hostname}: run `pulumi up` "
                           "on the migration stack first")
    found = weighted[0]
    items = found["routingPolicy"]["wrr"]["items"]
    if len(items) != len(records.labels):
        raise LiveDnsError(f"the {found.get('type')} record set of {records.hostname} in zone {records.zone} weighs "
                           f"{len(items)} items where the migration declares {len(records.labels)} "
                           f"({', '.join(records.labels)}): run `pulumi up` on the migration stack to restore it")
    return found


def _shares(items: list[dict[str, Any]]) -> list[int]:
    weights = [float(item.get("weight") or 0.0) for item in items]
    total = sum(weights)
    return [round(100 * weight / total) if total else 0 for weight in weights]


def read_weights(records: LiveRecords) -> dict[str, int]:
    clients, project, zone = _clients(records, READ_SCOPE)
    found = _record_set(records, clients, project, zone)
    return dict(zip(records.labels, _shares(found["routingPolicy"]["wrr"]["items"]), strict=True))


def write_weights(records: LiveRecords, weights: Mapping[str, int]) -> str:
    clients, project, zone = _clients(records, WRITE_SCOPE)
    found = _record_set(records, clients, project, zone)
    changed = {**found, "routingPolicy": {**found["routingPolicy"], "wrr": {**found["routingPolicy"]["wrr"], "items": [
        {**item, "weight": float(weights[label])}
        for label, item in zip(records.labels, found["routingPolicy"]["wrr"]["items"], strict=True)]}}}
    body = {"deletions": [found], "additions": [changed]}
    answer = _call(f"the weights of {records.hostname}", lambda: clients.execute(
        clients.service("dns").changes().create(project=project, managedZone=zone, body=body)))
    return str(answer.get("id") if isinstance(answer, dict) else answer)
