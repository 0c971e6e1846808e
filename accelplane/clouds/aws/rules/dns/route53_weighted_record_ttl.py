"""AP-DNS-001: a weighted Route 53 record in prod is cached for at most 60 seconds.

A weighted record is how a migration moves clients between two ends; its TTL is how long resolvers keep
an answer after an abort gives the source every weight. Above 60 s, clients keep calling a failing end
for that long after the rollback (docs/migration.md). An alias record has no TTL of its own (resolvers
cache the target's) and is not judged here.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_int, as_list

BOUND_SECONDS = 60


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment != "prod" or not as_list(resource.get("weightedRoutingPolicies")):
        return
    ttl = as_int(resource.get("ttl"))
    if ttl is not None and ttl > BOUND_SECONDS and not as_list(resource.get("aliases")):
        yield (f"weighted record cached for {ttl} s in prod: clients follow a rollback up to {ttl} s late "
               f"(at most {BOUND_SECONDS})")


RULE = Rule(
    id="AP-DNS-001",
    name="route53-weighted-record-ttl",
    description="Checks whether a weighted Route 53 record in a prod stack has a TTL of at most 60 seconds.",
    family=Family.rollout,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Set the migration's ttl_seconds to 60 or less (the record's ttl).",
    resource_types=frozenset({t.ROUTE53_RECORD}),
    check=check,
    categories=("availability", "migration"),
)
