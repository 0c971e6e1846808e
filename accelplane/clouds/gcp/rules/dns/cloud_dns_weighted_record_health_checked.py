"""AP-GDNS-002: a weighted Cloud DNS record set is health-checked.

With a health check on the routing policy and each item's health-checked targets, Cloud DNS leaves out an
item whose endpoints fail; without, a failing end keeps its share until a gate rolls the migration back.
Advisory: Cloud DNS health-checks only addresses of A/AAAA records (an ALB end cannot be), and a
migration may go without on purpose (`health_checks: false`).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    items = as_list(resource.get("routingPolicy", "wrrs"))
    if not items:
        return
    if not as_str(resource.get("routingPolicy", "healthCheck")):
        yield ("weighted record set has no health check: a failing end keeps its share until a gate rolls the "
               "migration back")
        return
    def targets(index: int, kind: str) -> list:
        return as_list(resource.get("routingPolicy", "wrrs", index, "healthCheckedTargets", kind))

    unchecked = [index for index in range(len(items))
                 if not targets(index, "externalEndpoints") and not targets(index, "internalLoadBalancers")]
    if unchecked:
        yield (f"items {', '.join(map(str, unchecked))} of the weighted record set name no health-checked targets: "
               "Cloud DNS serves them whatever their health")


RULE = Rule(
    id="AP-GDNS-002",
    name="cloud-dns-weighted-record-health-checked",
    description="Checks whether a weighted-round-robin Cloud DNS record set has a health check and "
    "health-checked targets on every item.",
    family=Family.rollout,
    severity=Severity.low,
    enforcement=Enforcement.advisory,
    remediation="Set the migration's health_checks: true (Cloud DNS checks A-record addresses: both ends must have "
    "fixed addresses).",
    resource_types=frozenset({t.GCP_DNS_RECORD_SET}),
    check=check,
    categories=("availability", "migration"),
)
