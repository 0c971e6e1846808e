"""AP-NET-001: no ingress from 0.0.0.0/0 or ::/0, except to what a load balancer's listeners make safe.

A public inference endpoint (`inference_endpoint.allowed_cidrs: [0.0.0.0/0]`) is a legitimate choice,
so the rule judges a world-open port of a load balancer's security group by what the load balancers
using that group serve on it, as the graph shows their listeners:

- a port whose listeners all terminate TLS (`HTTPS`): the endpoint's listener port, whatever
  `listener_port` declares (443 by default, not assumed);
- a port whose listeners all only redirect to HTTPS: port 80 when the endpoint declares
  `http_redirect` (the same test as AP-LB-002).

Everything else open to the world stays a finding: a port no listener serves, a plain-HTTP listener
that forwards, a port range, all traffic, UDP, and any world ingress on a group that is not a load
balancer's.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.load_balancer.listeners import only_redirects_to_https, protocol, redirect_problems
from accelplane.clouds.aws.rules.network.groups import Entry, entries, owning_groups
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_int

ALLOWED = "only a load balancer's HTTPS listener port, or a port its listeners only redirect to HTTPS, may be open"
_TCP = ("tcp", "6")


def _load_balancer_listeners(graph: ReferenceGraph, resource: Resource) -> list[Resource] | None:
    """The listeners of the load balancers that use `resource`'s group(s); None when a group is not a
    load balancer's."""
    groups = owning_groups(graph, resource)
    if not groups:
        return None
    found: dict[str, Resource] = {}
    for group in groups:
        balancers = graph.referring(group, "securityGroups", *t.LOAD_BALANCERS)
        if not balancers:
            return None
        for balancer in balancers:
            for listener in graph.referring(balancer, "loadBalancerArn", *t.LISTENERS):
                found[listener.urn] = listener
    return list(found.values())


def _port_problem(entry: Entry, listeners: list[Resource]) -> str | None:
    """Why the world may not reach `entry`'s port of a load balancer with `listeners` (None: it may)."""
    if entry.all_traffic:
        return "it opens all traffic"
    if entry.protocol not in _TCP:
        return f"listeners serve TCP, not {entry.protocol}"
    if entry.from_port is None or entry.from_port != entry.to_port:
        return "it opens a port range"
    port = entry.from_port
    on_port = [listener for listener in listeners if as_int(listener.get("port")) == port]
    if not on_port:
        return f"no listener serves port {port}"
    for listener in sorted(on_port, key=lambda r: r.name):
        if protocol(listener) == "HTTPS" or only_redirects_to_https(listener):
            continue
        if protocol(listener) == "HTTP":
            return f"listener {listener.name} on port {port}: {redirect_problems(listener)[0]}"
        kind = protocol(listener) or "unknown-protocol"
        return f"listener {listener.name} on port {port}: a {kind} listener neither terminates TLS nor redirects"
    return None


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    world = [entry for entry in entries(resource, graph) if entry.direction == "ingress" and entry.world]
    if not world:
        return
    listeners = _load_balancer_listeners(graph, resource)
    for entry in world:
        if listeners is None:
            yield f"ingress {entry.describe()}: {ALLOWED} to the internet"
            continue
        problem = _port_problem(entry, listeners)
        if problem:
            yield f"ingress {entry.describe()} on a load balancer: {problem}; {ALLOWED} to the internet"


RULE = Rule(
    id="AP-NET-001",
    name="sg-no-world-ingress",
    description="Checks whether security groups allow ingress from 0.0.0.0/0 or ::/0 other than to a load "
    "balancer's HTTPS listener port or a port whose listeners only redirect to HTTPS.",
    family=Family.network,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Allow the client CIDRs that need access, or reference another security group; a public "
    "endpoint opens only its HTTPS listener port, and port 80 only with a redirect-only listener "
    "(inference_endpoint.http_redirect).",
    resource_types=frozenset({t.INGRESS_RULE, t.SECURITY_GROUP_RULE, t.SECURITY_GROUP}),
    check=check,
    scope=Scope.stack,
    categories=("network-exposure",),
)
