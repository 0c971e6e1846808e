"""AP-LB-010: a public ALB in prod rate-limits its clients (AWS WAF rate-based rule).

A model endpoint without a rate limit is taken down by one client's burst or a slow first compile on
a new accelerator: it must shed load with 429s instead. Judged in prod only (a dev endpoint may go
without while its limit is sized); a count-only rule is AP-LB-011's. The finding is each target group
the load balancer forwards to when the graph resolves them: the fix is the service's `rate_limit`,
not the endpoint the load balancer is built from.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.load_balancer.web_acls import (
    forwarded_target_groups,
    is_public,
    waf_rate_rules,
    web_acls,
)
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import About, Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str | About]:
    if graph.environment != "prod" or not is_public(resource):
        return
    acls = web_acls(graph, resource)
    if not any(waf_rate_rules(acl) for acl in acls):
        where = "its web ACL has no rate-based rule" if acls else "no AWS WAF web ACL is associated"
        message = f"public load balancer in prod without a rate limit: {where}; one client can exhaust the " \
                  "model's capacity"
        groups = forwarded_target_groups(graph, resource)
        if not groups:
            yield message
        for group in groups:
            yield About(group, f"{message} (target group {group.name}, behind load balancer {resource.name})")


RULE = Rule(
    id="AP-LB-010",
    name="lb-inference-rate-limit",
    description="Checks whether an internet-facing application load balancer in prod is associated with an AWS "
    "WAF web ACL holding a rate-based rule.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare rate_limit on each exposed inference service (requests per window per client); "
    "accelplane puts a rate-based rule in the endpoint's WAF web ACL.",
    resource_types=t.LOAD_BALANCERS,
    check=check,
    scope=Scope.stack,
    categories=("network-exposure", "availability"),
    references=("https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based.html",),
    fix_field="rate_limit",
)
