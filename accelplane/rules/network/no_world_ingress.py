"""AP-NET-001: no ingress from 0.0.0.0/0 or ::/0, except TCP 443 on a load balancer's group."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import Graph
from accelplane.rules.model import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.network.groups import entries, owning_groups
from accelplane.rules.view import Resource


def _load_balancer_group(graph: Graph, resource: Resource) -> bool:
    groups = owning_groups(graph, resource)
    return bool(groups) and all(graph.referring(g, "securityGroups", *t.LOAD_BALANCERS) for g in groups)


def check(resource: Resource, graph: Graph) -> Iterator[str]:
    for entry in entries(resource, graph):
        if entry.direction != "ingress" or not entry.world:
            continue
        https_only = entry.protocol in ("tcp", "6") and entry.from_port == 443 and entry.to_port == 443
        if https_only and _load_balancer_group(graph, resource):
            continue
        where = " on a load balancer" if _load_balancer_group(graph, resource) else ""
        yield f"ingress {entry.describe()}{where}: only HTTPS (443) to a load balancer may be open to the internet"


RULE = Rule(
    id="AP-NET-001",
    name="sg-no-world-ingress",
    description="Checks whether security groups allow ingress from 0.0.0.0/0 or ::/0 other than TCP 443 on a "
    "load balancer.",
    family=Family.network,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Allow the client CIDRs that need access, or reference another security group.",
    resource_types=frozenset({t.INGRESS_RULE, t.SECURITY_GROUP_RULE, t.SECURITY_GROUP}),
    check=check,
    scope=Scope.stack,
    categories=("network-exposure",),
)
