"""AP-LB-011: in prod, AWS WAF rate limits block rather than only count.

A rate-based rule with the `count` action logs clients over the limit and lets them through: right
while a limit is sized outside prod, a limit that does nothing in prod. accelplane names a service's
rule `rate-<service>`: the finding is that service's target groups when the graph holds them, since
the fix is its `rate_limit.mode`.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.load_balancer.web_acls import counts_only, service_target_groups, waf_rate_rules
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import About, Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str | About]:
    if graph.environment != "prod":
        return
    for rule in waf_rate_rules(resource):
        if counts_only(rule):
            name = as_str(get(rule, "name"), "?")
            message = f"rate-based rule {name} only counts in prod: clients over the limit are let through"
            groups = service_target_groups(graph, name.removeprefix("rate-")) if name.startswith("rate-") else []
            if not groups:
                yield message
            for group in groups:
                yield About(group, f"{message} (web ACL {resource.name})")


RULE = Rule(
    id="AP-LB-011",
    name="lb-rate-limit-enforced",
    description="Checks whether a prod AWS WAF web ACL's rate-based rules block instead of only counting.",
    family=Family.load_balancer,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Set the service's rate_limit.mode to enforce (count is for sizing a limit outside prod).",
    resource_types=frozenset({t.WAF_WEB_ACL}),
    check=check,
    scope=Scope.stack,  # the finding is the service's resources, read from the whole graph
    categories=("availability",),
    fix_field="rate_limit",
)
