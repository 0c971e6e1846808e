"""AP-GNET-002: no VPC firewall rule admits the internet to the platform's nodes.

On GKE the inference endpoint is a Gateway: Google's proxies terminate the client connection and
reach the pods from Google Front End and health-check ranges (130.211.0.0/22, 35.191.0.0/16), which
GKE opens itself; no firewall rule the program declares needs 0.0.0.0/0 or ::/0. All protocols or
every port from the world is the worst case and says so. An ingress rule without any source admits
0.0.0.0/0. Twin of AP-NET-001.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.network.gcp_firewall import allowed, world_sources
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    world = world_sources(resource)
    if not world:
        return
    for entry in allowed(resource):
        if entry.every_port:
            yield f"{entry.describe()} open to the internet (from {', '.join(world)})"
        else:
            yield f"{entry.describe()} open to the internet (from {', '.join(world)}): only load balancer and " \
                  "health-check ranges may reach nodes"


RULE = Rule(
    id="AP-GNET-002",
    name="gcp-firewall-no-world-ingress",
    description="Checks whether a VPC firewall rule allows ingress from 0.0.0.0/0 or ::/0 (an ingress rule with "
    "no source included).",
    family=Family.network,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Name the sources: 130.211.0.0/22 and 35.191.0.0/16 for load balancer health checks, the "
    "cluster's own ranges for node traffic.",
    resource_types=frozenset({t.GCP_FIREWALL}),
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/load-balancing/docs/health-check-concepts#ip-ranges",
                "https://cloud.google.com/firewall/docs/firewalls#sources_for_ingress_rules"),
)
