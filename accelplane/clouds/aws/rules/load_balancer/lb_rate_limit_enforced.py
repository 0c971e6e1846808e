"""AP-LB-011: in prod, AWS WAF rate limits block rather than only count.

A rate-based rule with the `count` action logs clients over the limit and lets them through: right
while a limit is sized outside prod, a limit that does nothing in prod.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.load_balancer.web_acls import counts_only, waf_rate_rules
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment != "prod":
        return
    for rule in waf_rate_rules(resource):
        if counts_only(rule):
            yield f"rate-based rule {as_str(get(rule, 'name'), '?')} only counts in prod: clients over the limit " \
                  "are let through"


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
    categories=("availability",),
)
