"""Google Cloud's part in a migration: how a GKE stack's service is reached (its Gateway's global
address), and Cloud DNS as the DNS that holds a migration's weighted records (entry points
`accelplane.fronts` and `accelplane.dns`, both `gcp`).

Facts (Cloud DNS docs, "DNS routing policies and health checks" and "Manage routing policies", read
2026-12-07):
- A weighted-round-robin (WRR) policy gives each item of one record set a weight; the items are the
  record set's own type (`rrdatas`), so one A record set cannot hold an ALB's name (a CNAME) beside
  the Gateway's address.
- Health-checked external endpoints are IP addresses of A/AAAA records, checked by one global health
  check per record set whose `sourceRegions` are exactly three regions.
- How long a change takes to reach Google's name servers: no bound found in the pages read; 120 s is
  assumed (confidence: unconfirmed) and the rollback figure says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accelplane.clouds.gcp.dns_zone import ZONE
from accelplane.migration.facets import VALIDATION_TTL_SECONDS, DnsService, Front, FrontKind, LiveRecords, WeightedName

if TYPE_CHECKING:
    import pulumi
    from pulumi_gcp.dns import RecordSetRoutingPolicyArgsDict

# The health check's three probing regions (Cloud DNS requires exactly three for external endpoints).
_SOURCE_REGIONS = ("us-central1", "us-east4", "us-west1")

FRONT = Front(
    cloud="gcp",
    kind=FrontKind.address,
    what="the Gateway's global address",
    address_output="inferenceAddress",
    alias_zone_output=None,
    own_ttl_seconds=None,
    own_ttl_source=None,
    # A Certificate Manager DNS authorization's record: `_acme-challenge_<id>.<domain>` CNAME
    # `<uuid>.<n>.authorize.certificatemanager.goog` (Certificate Manager, "Create a DNS authorization").
    validation_domain="authorize.certificatemanager.goog",
    validation_what="Certificate Manager's DNS authorization",
)


def _zone_problem(zone: str) -> str | None:
    if ZONE.fullmatch(zone):
        return None
    return (f"{zone!r} is not a Cloud DNS managed zone (expected projects/<project>/managedZones/<zone>: "
            "`gcloud dns managed-zones list --project <project>`)")


def _refusal(fronts: Sequence[Front], health_checks: bool, health_paths: Sequence[str]) -> str | None:
    names = [front for front in fronts if front.kind is FrontKind.hostname]
    if names and health_checks:
        return (f"Cloud DNS health-checks IP addresses of A records only, and {names[0].what} has no fixed "
                "address: use dns.service route53 (an alias record, health-checked by the load balancer), or "
                "health_checks: false")
    if names and len(names) != len(fronts):
        return (f"one Cloud DNS record set cannot hold {names[0].what}'s name beside an address (a WRR policy's "
                "items share the record type): use dns.service route53, which mixes an alias and an address")
    if health_checks and len(set(health_paths)) > 1:
        return (f"Cloud DNS checks every item of a record set with one health check, and the ends' health paths "
                f"differ ({', '.join(health_paths)}): give the services the same health_check path, or use "
                "dns.service route53 (a health check per end)")
    return None


def _declare(name: WeightedName) -> Mapping[str, Any]:
    # Start-up time: pulumi-gcp loads only when the program runs.
    import pulumi_gcp as gcp

    match = ZONE.fullmatch(name.zone)
    assert match is not None  # the declaration's checks refuse any other form
    project, zone = match["project"], match["zone"]
    addresses = all(end.front.kind is FrontKind.address for end in name.ends)
    policy: RecordSetRoutingPolicyArgsDict
    if name.health_checks:
        first = name.ends[0]
        check = gcp.compute.HealthCheck(
            f"{name.name}-dns", project=project, source_regions=list(_SOURCE_REGIONS), check_interval_sec=10,
            timeout_sec=5, unhealthy_threshold=3,
            https_health_check={"port": first.port, "request_path": first.health_path, "host": name.hostname})
        policy = {"health_check": check.id, "wrrs": [
            {"weight": end.weight, "health_checked_targets": {"external_endpoints": [end.address]}}
            for end in name.ends]}
    else:
        # A CNAME's data is a name with its trailing dot.
        policy = {"wrrs": [{"weight": end.weight, "rrdatas": [end.address if addresses
                                                             else end.address.apply(lambda a: f"{a}.")]}
                           for end in name.ends]}
    gcp.dns.RecordSet(name.name, project=project, managed_zone=zone, name=f"{name.hostname}.",
                      type="A" if addresses else "CNAME", ttl=name.ttl_seconds, routing_policy=policy)
    for index, (record, value) in enumerate(name.validation):
        # Cloud DNS takes names and a CNAME's data with their trailing dots.
        gcp.dns.RecordSet(f"{name.name}-validation-{index}", project=project, managed_zone=zone, name=f"{record}.",
                          type="CNAME", ttl=VALIDATION_TTL_SECONDS, rrdatas=[f"{value}."])
    return {"dnsRecords": {end.label: end.weight for end in name.ends}}


def _read_weights(records: LiveRecords) -> dict[str, int]:
    from accelplane.clouds.gcp import migration_live  # start-up time: Google's clients load for a live command

    return migration_live.read_weights(records)


def _write_weights(records: LiveRecords, weights: Mapping[str, int]) -> str:
    from accelplane.clouds.gcp import migration_live  # start-up time: as _read_weights

    return migration_live.write_weights(records, weights)


def _mocks() -> pulumi.runtime.Mocks:
    from accelplane.clouds.gcp.mocks import GcpLikeMocks  # start-up time: the mocks load for an offline run only

    return GcpLikeMocks("acme-dns", "us-central1")


CLOUD_DNS = DnsService(
    cloud="gcp",
    name="cloud-dns",
    title="Cloud DNS",
    zone_problem=_zone_problem,
    refusal=_refusal,
    aliases_names=False,
    # Whether a Cloud Armor allow-list in front of the address sees Cloud DNS's probes was not found in
    # the pages read (2026-12-07): not judged.
    checker_ranges=None,
    propagation_seconds=120,
    propagation_source="assumed, unconfirmed: the Cloud DNS pages read on 2026-12-07 give no bound",
    declare=_declare,
    offline_mocks=_mocks,
    read_weights=_read_weights,
    write_weights=_write_weights,
)
