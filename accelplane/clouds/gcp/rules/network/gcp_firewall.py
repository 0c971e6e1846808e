"""VPC firewall rules (`gcp:compute/firewall:Firewall`) as the network rules read them.

A rule's `direction` defaults to INGRESS. An ingress rule applies to traffic from `sourceRanges`,
`sourceTags` or `sourceServiceAccounts`; with none of them its source is every IPv4 address
(0.0.0.0/0, VPC firewall rules overview, "Sources for ingress rules"). `allows[]` holds
`{protocol, ports}`: `protocol` is a name (`tcp`, `udp`, `icmp`, ...), an IP protocol number or
`all`; `ports` are `"22"` or `"8000-8080"` and, when absent, every port. A `disabled` rule does not
apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelplane.rules.view import Resource, as_bool, as_list, as_str, get

WORLD = frozenset({"0.0.0.0/0", "::/0"})
_ALL = ("all",)
_TCP = ("tcp", "6")
_PORTED = ("tcp", "6", "udp", "17", "sctp", "132")


@dataclass(frozen=True)
class Allowed:
    protocol: str
    ports: tuple[tuple[int, int], ...]  # empty: every port

    @property
    def every_port(self) -> bool:
        if self.protocol in _ALL:
            return True
        if self.protocol not in _PORTED:
            return False
        return not self.ports or any(low <= 1 and high >= 65535 for low, high in self.ports)

    def covers_tcp(self, port: int) -> bool:
        if self.protocol in _ALL:
            return True
        if self.protocol not in _TCP:
            return False
        return not self.ports or any(low <= port <= high for low, high in self.ports)

    def describe(self) -> str:
        if self.protocol in _ALL:
            return "all protocols"
        if not self.ports:
            return f"{self.protocol} (every port)"
        return f"{self.protocol}:" + ",".join(str(low) if low == high else f"{low}-{high}" for low, high in self.ports)


def _port_range(text: str) -> tuple[int, int] | None:
    low, _, high = text.partition("-")
    if not low.strip().isdigit() or (high and not high.strip().isdigit()):
        return None
    return int(low), int(high or low)


def allowed(resource: Resource) -> list[Allowed]:
    found = []
    for block in as_list(resource.get("allows")):
        protocol = as_str(get(block, "protocol")).lower()
        ports = tuple(r for r in (_port_range(as_str(p)) for p in as_list(get(block, "ports"))) if r)
        found.append(Allowed(protocol, ports))
    return found


def world_sources(resource: Resource) -> list[str]:
    """The world ranges an enabled ingress rule admits ([] for egress, disabled or narrower rules)."""
    if (as_str(resource.get("direction")) or "INGRESS").upper() != "INGRESS" or as_bool(resource.get("disabled")):
        return []
    ranges = [as_str(r) for r in as_list(resource.get("sourceRanges"))]
    if not ranges and not as_list(resource.get("sourceTags")) and not as_list(resource.get("sourceServiceAccounts")):
        return ["0.0.0.0/0 (no source given)"]
    return [r for r in ranges if r in WORLD]
