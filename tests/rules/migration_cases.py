"""Pass and fail fixtures of the rules on a migration's weighted DNS records (Route 53 and Cloud DNS), with
the inputs as the migration program declares them (pulumi-aws `route53.Record`, pulumi-gcp
`dns.RecordSet`)."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as aws_types
from accelplane.clouds.gcp import resource_types as gcp_types
from tests.rules.cases import Case, res


def _alias(label: str, *, evaluate: bool) -> Any:
    return res(aws_types.ROUTE53_RECORD, f"{label}-record", {
        "zoneId": "Z0123456789ABCDEFGHIJ", "name": "llm.acme.example", "type": "A", "setIdentifier": label,
        "weightedRoutingPolicies": [{"weight": 100}],
        "aliases": [{"name": "acme-alb.us-west-2.elb.amazonaws.com", "zoneId": "Z1H1FL5HABSF5",
                     "evaluateTargetHealth": evaluate}]})


def _address(label: str, *, ttl: int = 60, health_check: str | None = "hc-1") -> Any:
    props: dict[str, Any] = {"zoneId": "Z0123456789ABCDEFGHIJ", "name": "llm.acme.example", "type": "A",
                             "setIdentifier": label, "ttl": ttl, "records": ["34.117.197.99"],
                             "weightedRoutingPolicies": [{"weight": 0}]}
    if health_check:
        props["healthCheckId"] = health_check
    return res(aws_types.ROUTE53_RECORD, f"{label}-record", props)


def _plain(ttl: int) -> Any:
    """A simple (unweighted) record: not a migration's, never judged."""
    return res(aws_types.ROUTE53_RECORD, "www-record", {"zoneId": "Z0123456789ABCDEFGHIJ", "name": "www.acme.example",
                                                         "type": "CNAME", "ttl": ttl, "records": ["acme.example"]})


def _record_set(*, ttl: int = 60, health_check: str | None = "hc", targets: tuple[bool, bool] = (True, True)) -> Any:
    items = []
    for address, checked in zip(("34.117.197.99", "34.120.10.20"), targets, strict=True):
        item: dict[str, Any] = {"weight": 50}
        if checked:
            item["healthCheckedTargets"] = {"externalEndpoints": [address]}
        else:
            item["rrdatas"] = [address]
        items.append(item)
    policy: dict[str, Any] = {"wrrs": items}
    if health_check:
        policy["healthCheck"] = health_check
    return res(gcp_types.GCP_DNS_RECORD_SET, "llm-move", {"project": "acme-dns", "managedZone": "acme-example",
                                                          "name": "llm.acme.example.", "type": "A", "ttl": ttl,
                                                          "routingPolicy": policy})


MIGRATION_CASES: dict[str, Case] = {
    "AP-DNS-001": Case(
        passing=[_address("tpu-prod", ttl=60), _alias("prod", evaluate=True), _plain(3600)],
        failing=[_address("tpu-prod", ttl=300)],
        expect="weighted record cached for 300 s in prod", target="tpu-prod-record", environment="prod"),
    "AP-DNS-002": Case(
        passing=[_address("tpu-prod"), _alias("prod", evaluate=True), _plain(60)],
        failing=[_address("tpu-prod", health_check=None), _alias("prod", evaluate=False)],
        expect="weighted record tpu-prod has no health check", target="tpu-prod-record", also=("prod-record",)),
    "AP-GDNS-001": Case(
        passing=[_record_set(ttl=30)],
        failing=[_record_set(ttl=120)],
        expect="weighted record set cached for 120 s in prod", target="llm-move", environment="prod"),
    "AP-GDNS-002": Case(
        passing=[_record_set()],
        failing=[_record_set(targets=(True, False))],
        expect="items 1 of the weighted record set name no health-checked targets", target="llm-move"),
}
