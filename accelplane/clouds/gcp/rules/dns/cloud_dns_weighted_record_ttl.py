"""AP-GDNS-001: a weighted Cloud DNS record set in prod is cached for at most 60 seconds.

A weighted-round-robin record set is how a migration on Cloud DNS moves clients between two ends; its
TTL is how long resolvers keep an answer after an abort gives the source every weight (docs/migration.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_int, as_list

BOUND_SECONDS = 60


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment != "prod" or not as_list(resource.get("routingPolicy", "wrrs")):
        return
    ttl = as_int(resource.get("ttl"))
    if ttl is not None and ttl > BOUND_SECONDS:
        yield (f"weighted record set cached for {ttl} s in prod: clients follow a rollback up to {ttl} s late "
               f"(at most {BOUND_SECONDS})")


RULE = Rule(
    id="AP-GDNS-001",
    name="cloud-dns-weighted-record-ttl",
    description="Checks whether a weighted-round-robin Cloud DNS record set in a prod stack has a TTL of at "
    "most 60 seconds.",
    family=Family.rollout,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Set the migration's ttl_seconds to 60 or less (the record set's ttl).",
    resource_types=frozenset({t.GCP_DNS_RECORD_SET}),
    check=check,
    categories=("availability", "migration"),
)
