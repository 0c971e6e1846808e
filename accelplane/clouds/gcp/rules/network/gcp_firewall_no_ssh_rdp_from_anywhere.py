"""AP-GNET-001: no VPC firewall rule opens SSH (22) or RDP (3389) to the internet.

An ingress rule without any source admits 0.0.0.0/0. Twin of AP-NET-002.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.network.gcp_firewall import allowed, world_sources
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

_ADMIN_PORTS = {22: "SSH", 3389: "RDP"}


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    world = world_sources(resource)
    if not world:
        return
    for entry in allowed(resource):
        for port, what in _ADMIN_PORTS.items():
            if entry.covers_tcp(port):
                yield f"{what} ({port}) open to the internet ({entry.describe()} from {', '.join(world)})"


RULE = Rule(
    id="AP-GNET-001",
    name="gcp-firewall-no-ssh-rdp-from-anywhere",
    description="Checks whether a VPC firewall rule allows SSH or RDP from 0.0.0.0/0 or ::/0.",
    family=Family.network,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Reach nodes with IAP TCP forwarding (source 35.235.240.0/20) or not at all; drop the rule.",
    resource_types=frozenset({t.GCP_FIREWALL}),
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/firewall/docs/firewalls#sources_for_ingress_rules",
                "https://cloud.google.com/iap/docs/using-tcp-forwarding#create-firewall-rule"),
)
