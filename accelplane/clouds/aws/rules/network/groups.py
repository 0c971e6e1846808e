"""Security group rules in their three pulumi-aws shapes, as one list of entries.

- `aws:vpc/securityGroupIngressRule` / `...EgressRule` (one rule per resource, what the program uses);
- `aws:ec2/securityGroupRule` (`type: ingress|egress`);
- inline `ingress[]` / `egress[]` blocks on `aws:ec2/securityGroup`.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.view import Resource, as_bool, as_int, as_list, as_str, get

WORLD = frozenset({"0.0.0.0/0", "::/0"})
_ALL = ("-1", "all")
_TCP = ("tcp", "6")


@dataclass(frozen=True)
class Entry:
    direction: str  # ingress | egress
    protocol: str
    from_port: int | None
    to_port: int | None
    cidrs: tuple[str, ...]
    self_ref: bool  # the group refers to itself (inline `self`, or source group == own group)

    @property
    def all_traffic(self) -> bool:
        return self.protocol in _ALL

    def covers(self, port: int) -> bool:
        if self.all_traffic:
            return True
        if self.protocol not in _TCP:
            return False
        low = self.from_port if self.from_port is not None else 0
        high = self.to_port if self.to_port is not None else 65535
        return low <= port <= high

    @property
    def world(self) -> bool:
        return any(c in WORLD for c in self.cidrs)

    def describe(self) -> str:
        if self.all_traffic:
            ports = "all traffic"
        elif self.from_port == self.to_port:
            ports = f"{self.protocol}/{self.from_port}"
        else:
            ports = f"{self.protocol}/{self.from_port}-{self.to_port}"
        return f"{ports} from {', '.join(c for c in self.cidrs if c in WORLD)}"


def _protocol(value: object) -> str:
    return as_str(value).lower() or "-1"


def entries(resource: Resource, graph: ReferenceGraph | None = None) -> list[Entry]:
    if resource.type in (t.INGRESS_RULE, t.EGRESS_RULE):
        direction = "ingress" if resource.type == t.INGRESS_RULE else "egress"
        cidrs = tuple(c for c in (as_str(resource.get("cidrIpv4")), as_str(resource.get("cidrIpv6"))) if c)
        own, other = resource.get("securityGroupId"), resource.get("referencedSecurityGroupId")
        self_ref = other is not None and own == other
        if graph is not None and other is not None and not self_ref:
            groups = graph.ref(resource, "securityGroupId", t.SECURITY_GROUP)
            self_ref = bool(groups) and all(graph.refers_to(resource, "referencedSecurityGroupId", g) for g in groups)
        return [Entry(direction, _protocol(resource.get("ipProtocol")), as_int(resource.get("fromPort")),
                      as_int(resource.get("toPort")), cidrs, self_ref)]
    if resource.type == t.SECURITY_GROUP_RULE:
        cidrs = tuple(as_str(c) for c in as_list(resource.get("cidrBlocks")) + as_list(resource.get("ipv6CidrBlocks")))
        own, source = resource.get("securityGroupId"), resource.get("sourceSecurityGroupId")
        self_ref = bool(as_bool(resource.get("self"))) or (source is not None and source == own)
        return [Entry(as_str(resource.get("type")), _protocol(resource.get("protocol")),
                      as_int(resource.get("fromPort")), as_int(resource.get("toPort")), cidrs, self_ref)]
    if resource.type == t.SECURITY_GROUP:
        out = []
        for direction in ("ingress", "egress"):
            for block in as_list(resource.get(direction)):
                blocks = as_list(get(block, "cidrBlocks")) + as_list(get(block, "ipv6CidrBlocks"))
                cidrs = tuple(as_str(c) for c in blocks)
                out.append(Entry(direction, _protocol(get(block, "protocol")), as_int(get(block, "fromPort")),
                                 as_int(get(block, "toPort")), cidrs, bool(as_bool(get(block, "self")))))
        return out
    return []


RULE_TYPES = frozenset({t.INGRESS_RULE, t.EGRESS_RULE, t.SECURITY_GROUP_RULE, t.SECURITY_GROUP})


def group_entries(graph: ReferenceGraph, group: Resource) -> list[Entry]:
    """Every rule entry of `group`: inline blocks plus separate rule resources that belong to it."""
    found = entries(group, graph)
    for rule in graph.referring(group, "securityGroupId", t.INGRESS_RULE, t.EGRESS_RULE, t.SECURITY_GROUP_RULE):
        found.extend(entries(rule, graph))
    return found


def owning_groups(graph: ReferenceGraph, resource: Resource) -> list[Resource]:
    if resource.type == t.SECURITY_GROUP:
        return [resource]
    return graph.ref(resource, "securityGroupId", t.SECURITY_GROUP)


def is_self_referencing_all_traffic(graph: ReferenceGraph, group: Resource) -> tuple[bool, bool]:
    """(ingress, egress): whether the group allows all traffic from/to itself."""
    found = group_entries(graph, group)
    ingress = any(e.direction == "ingress" and e.all_traffic and e.self_ref for e in found)
    egress = any(e.direction == "egress" and e.all_traffic and e.self_ref for e in found)
    return ingress, egress


def interface_groups(graph: ReferenceGraph, launch_template: Resource) -> list[tuple[bool, list[Resource]]]:
    """(is EFA, declared security groups) for each network interface of a launch template."""
    out = []
    for interface in as_list(launch_template.get("networkInterfaces")):
        efa = as_str(get(interface, "interfaceType")) == "efa"
        groups: dict[str, Resource] = {}
        for value in as_list(get(interface, "securityGroups")):
            for group in graph.with_identity(value, t.SECURITY_GROUP):
                groups[group.urn] = group
        out.append((efa, list(groups.values())))
    return out
