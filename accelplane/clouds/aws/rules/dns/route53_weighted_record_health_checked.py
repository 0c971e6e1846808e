"""AP-DNS-002: a weighted Route 53 record is health-checked.

Route 53 answers only with healthy records of a weighted set: with a health check (an address record's
`healthCheckId`) or the target's own health (an alias's `evaluateTargetHealth`), an end that stops
answering loses its share of new resolutions within the checks' interval. Without one, it keeps its
share until a gate rolls the migration back. Advisory: an end whose allow-list refuses Route 53's
checkers must go without (the migration's check says so).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not as_list(resource.get("weightedRoutingPolicies")):
        return
    label = as_str(resource.get("setIdentifier")) or "?"
    aliases = as_list(resource.get("aliases"))
    if aliases:
        if not any(as_bool(resource.get("aliases", index, "evaluateTargetHealth")) for index in range(len(aliases))):
            yield (f"weighted alias record {label} does not evaluate its target's health: a failing end keeps its "
                   "share until a gate rolls the migration back")
    elif not as_str(resource.get("healthCheckId")):
        yield (f"weighted record {label} has no health check: a failing end keeps its share until a gate rolls "
               "the migration back")


RULE = Rule(
    id="AP-DNS-002",
    name="route53-weighted-record-health-checked",
    description="Checks whether each weighted Route 53 record is health-checked (a health check, or an alias "
    "evaluating its target's health).",
    family=Family.rollout,
    severity=Severity.low,
    enforcement=Enforcement.advisory,
    remediation="Set the migration's health_checks: true (and admit Route 53's health checkers on the end's "
    "allow-list).",
    resource_types=frozenset({t.ROUTE53_RECORD}),
    check=check,
    categories=("availability", "migration"),
)
