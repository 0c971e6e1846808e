"""What protects an ALB, as the resilience rules read it from a graph.

An ALB is protected by the AWS WAF web ACL a `WebAclAssociation` joins to it (`resourceArn` the ALB,
`webAclArn` the ACL); a rate limit is a rule whose statement is a `rateBasedStatement`, enforcing when
its action blocks, only counting when its action is `count`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.endpoint_tags import SERVICE_TAG
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.view import Resource, UnknownValue, as_bool, as_list, as_str, get


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


def forwarded_target_groups(graph: ReferenceGraph, load_balancer: Resource) -> list[Resource]:
    """The target groups `load_balancer`'s listeners forward to (default actions and listener rules): the
    services' backends, whose declaration holds what protects them (a rate limit is a service's)."""
    actions: list[Any] = []
    for listener in graph.referring(load_balancer, "loadBalancerArn", *t.LISTENERS):
        actions += as_list(listener.get("defaultActions"))
        for rule in graph.referring(listener, "listenerArn", *t.LISTENER_RULES):
            actions += as_list(rule.get("actions"))
    found: dict[str, Resource] = {}
    for action in actions:
        for arn in _forwarded_arns(action):
            for group in graph.with_identity(arn, *t.TARGET_GROUPS):
                found[group.urn] = group
    return list(found.values())


def _forwarded_arns(action: Any) -> list[str]:
    """The target group ARNs a listener action forwards to; those not known yet (a preview) are left out."""
    if not isinstance(action, Mapping):
        return []
    try:
        groups = as_list(get(action, "forward", "targetGroups"))
        values = [get(action, "targetGroupArn"), *(get(group, "arn") for group in groups)]
    except UnknownValue:
        return []
    return [value for value in values if isinstance(value, str) and value]


def service_target_groups(graph: ReferenceGraph, service: str) -> list[Resource]:
    """The target groups accelplane tagged as `service`'s backends."""
    return [group for group in graph.of_type(*t.TARGET_GROUPS)
            if as_str(get(group.get("tags") or {}, SERVICE_TAG)) == service]
