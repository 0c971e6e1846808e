"""What protects an ALB, as the resilience rules read it from a graph.

An ALB is protected by the AWS WAF web ACL a `WebAclAssociation` joins to it (`resourceArn` the ALB,
`webAclArn` the ACL); a rate limit is a rule whose statement is a `rateBasedStatement`, enforcing when
its action blocks, only counting when its action is `count`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get


def is_public(load_balancer: Resource) -> bool:
    return as_bool(load_balancer.get("internal")) is not True and (
        as_str(load_balancer.get("loadBalancerType")) or "application") == "application"


def web_acls(graph: ReferenceGraph, load_balancer: Resource) -> list[Resource]:
    """The WAF web ACLs associated with `load_balancer`."""
    found: dict[str, Resource] = {}
    for association in graph.referring(load_balancer, "resourceArn", t.WAF_WEB_ACL_ASSOCIATION):
        for acl in graph.ref(association, "webAclArn", t.WAF_WEB_ACL):
            found[acl.urn] = acl
    return list(found.values())


def waf_rate_rules(acl: Resource) -> list[Mapping[str, Any]]:
    return [rule for rule in as_list(acl.get("rules"))
            if isinstance(rule, Mapping) and get(rule, "statement", "rateBasedStatement") is not None]


def counts_only(rule: Mapping[str, Any]) -> bool:
    return get(rule, "action", "count") is not None
