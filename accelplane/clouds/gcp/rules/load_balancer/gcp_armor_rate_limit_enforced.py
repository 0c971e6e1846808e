"""AP-GLB-011: in prod, Cloud Armor rate limits are enforced, not previewed.

A `preview` rule logs what it would do and lets every request through: right while a limit is sized
outside prod, a limit that does nothing in prod.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.load_balancer.armor import armor_rate_rules
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment != "prod":
        return
    for rule in armor_rate_rules(resource):
        if as_bool(get(rule, "preview")) is True:
            yield f"{as_str(get(rule, 'action'))} rule at priority {get(rule, 'priority')} is preview-only in " \
                  "prod: clients over the limit are let through"


RULE = Rule(
    id="AP-GLB-011",
    name="gcp-armor-rate-limit-enforced",
    description="Checks whether a prod Cloud Armor policy's rate-limiting rules are enforced rather than preview.",
    family=Family.load_balancer,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Set the service's rate_limit.mode to enforce (count is for sizing a limit outside prod).",
    resource_types=frozenset({t.GCP_SECURITY_POLICY}),
    check=check,
    categories=("availability",),
)
