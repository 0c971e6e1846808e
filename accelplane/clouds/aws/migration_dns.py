"""AWS's part in a migration: how an EKS stack's service is reached (its ALB, at a DNS name), and Route 53
as the DNS that holds a migration's weighted records (entry points `accelplane.fronts` and
`accelplane.dns`, both `aws`).

Facts (AWS docs, read 2026-12-07):
- An alias record has no TTL of its own: Route 53 answers with the target's, and an ELB alias is cached
  for a fixed 60 s (Route 53 FAQ, "Do I need to adjust the TTL for my records in order to use DNS
  Failover?"; ELB guide, "Delete an Application Load Balancer": "If the record is a Route 53 Alias(A)
  record, wait at least 60 seconds").
- A change takes 60 s to reach every Route 53 name server ("the record change takes 60 seconds to
  propagate to all global Route 53 name servers. Add this time to the TTL value", same page).
- Weighted records of one name share its type; an alias A record and an A record with an address mix
  (Route 53 Developer Guide, "Weighted routing"); weights are 0-255.
- An alias to an ELB is health-checked by `EvaluateTargetHealth` (the load balancer's targets); an
  address needs a Route 53 health check of its own (Developer Guide, "Creating Amazon Route 53 health
  checks": HTTPS with SNI to the name, from Route 53's checkers).
- An ACM certificate requested with DNS validation is issued (and renewed) while a CNAME it names is
  in the domain's zone: `_<hash>.<domain>` pointing at `_<hash>.<...>.acm-validations.aws` (ACM User
  Guide, "DNS validation").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accelplane.migration.facets import VALIDATION_TTL_SECONDS, DnsService, Front, FrontKind, WeightedName

if TYPE_CHECKING:
    import pulumi

ALB_ALIAS_TTL_SECONDS = 60
_ALIAS_TTL_SOURCE = "Route 53 FAQ on DNS failover: ELB alias records have a fixed 60 s TTL"
_PROPAGATION_SOURCE = "ELB User Guide, Delete an Application Load Balancer"
# Hosted zone ids: upper-case letters and digits (AWS's start with Z; the API's ResourceId is at most 32
# characters and the model gives no pattern, so no first letter is required).
_ZONE_ID = re.compile(r"[A-Z0-9]{1,32}")
# Route 53 health checks: every 10 s, out after 3 failures (about 30 s to take an end out of the answers).
_CHECK_INTERVAL_SECONDS = 10
_CHECK_FAILURES = 3

FRONT = Front(
    cloud="aws",
    kind=FrontKind.hostname,
    what="the ALB",
    address_output="inferenceEndpoint",
    alias_zone_output="inferenceEndpointZoneId",
    own_ttl_seconds=ALB_ALIAS_TTL_SECONDS,
    own_ttl_source=_ALIAS_TTL_SOURCE,
    validation_domain="acm-validations.aws",
    validation_what="ACM's DNS validation",
)


def _zone_problem(zone: str) -> str | None:
    if _ZONE_ID.fullmatch(zone):
        return None
    return (f"{zone!r} is not a Route 53 hosted zone id (expected capital letters and digits, e.g. "
            "Z0123456789ABCDEFGHIJ: `aws route53 list-hosted-zones-by-name --dns-name <zone>`)")


def _refusal(fronts: Sequence[Front], health_checks: bool, health_paths: Sequence[str]) -> str | None:
    # Route 53 serves both kinds of front: an alias A record for a name, an A record (with a health check
    # of its own) for an address, mixed under one weighted name.
    return None


def _declare(name: WeightedName) -> Mapping[str, Any]:
    # Start-up time: pulumi-aws loads only when the program runs.
    import pulumi
    import pulumi_aws as aws

    # Route 53 is a global service whose API answers in us-east-1, whatever the ends' regions.
    provider = aws.Provider(f"{name.name}-route53", region="us-east-1")
    opts = pulumi.ResourceOptions(provider=provider)
    for end in name.ends:
        logical = f"{name.name}-{end.role}"
        common: dict[str, Any] = {"zone_id": name.zone, "name": name.hostname, "type": "A", "set_identifier": end.label,
                                  "weighted_routing_policies": [{"weight": end.weight}]}
        if end.front.kind is FrontKind.hostname:
            assert end.alias_zone is not None
            aws.route53.Record(logical, **common, aliases=[{
                "name": end.address, "zone_id": end.alias_zone, "evaluate_target_health": name.health_checks}],
                opts=opts)
            continue
        check_id: pulumi.Output[str] | None = None
        if name.health_checks:
            check = aws.route53.HealthCheck(
                logical, type="HTTPS", ip_address=end.address, port=end.port, resource_path=end.health_path,
                fqdn=name.hostname, enable_sni=True, request_interval=_CHECK_INTERVAL_SECONDS,
                failure_threshold=_CHECK_FAILURES, tags={"Name": logical, "accelplane:migration": name.name},
                opts=opts)
            check_id = check.id
        aws.route53.Record(logical, **common, ttl=name.ttl_seconds, records=[end.address], health_check_id=check_id,
                           opts=opts)
    for index, (record, value) in enumerate(name.validation):
        aws.route53.Record(f"{name.name}-validation-{index}", zone_id=name.zone, name=record, type="CNAME",
                           ttl=VALIDATION_TTL_SECONDS, records=[value], opts=opts)
    return {"dnsRecords": {end.label: end.weight for end in name.ends}}


def _mocks() -> pulumi.runtime.Mocks:
    from accelplane.clouds.aws.mocks import AwsLikeMocks  # start-up time: the mocks load for an offline run only

    return AwsLikeMocks("us-east-1")


def _live() -> Any:
    from accelplane.clouds.aws import migration_live  # start-up time: boto3 loads for a live command only

    return migration_live


ROUTE53 = DnsService(
    cloud="aws",
    name="route53",
    title="Route 53",
    zone_problem=_zone_problem,
    refusal=_refusal,
    aliases_names=True,
    checker_ranges="Route 53's health checkers (the ROUTE53_HEALTHCHECKS ranges of "
                   "https://ip-ranges.amazonaws.com/ip-ranges.json)",
    propagation_seconds=60,
    propagation_source=_PROPAGATION_SOURCE,
    declare=_declare,
    offline_mocks=_mocks,
    read_weights=lambda records: _live().read_weights(records),
    write_weights=lambda records, weights: _live().write_weights(records, weights),
)
