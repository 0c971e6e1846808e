"""AP-EC2-004: accelerator nodes get no public IP address (neither from their launch template nor
from a subnet that maps public IPs on launch).

A node is an accelerator node when its node group's `accelplane.io/accelerator` label is set (not
`none`) or its instance type is an accelerated family (p, g, trn, inf, dl).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get, mapping

_ACCELERATED = re.compile(r"^(p\d|g\d|trn\d|inf\d|dl\d)")


def is_accelerator_node_group(resource: Resource) -> bool:
    label = mapping(resource.get("labels")).get("accelplane.io/accelerator")
    if isinstance(label, str) and label not in ("", "none"):
        return True
    return any(_ACCELERATED.match(as_str(i)) for i in as_list(resource.get("instanceTypes")))


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if resource.type == t.INSTANCE:
        accelerated = _ACCELERATED.match(as_str(resource.get("instanceType")))
        if accelerated and as_bool(resource.get("associatePublicIpAddress")):
            yield "accelerator instance gets a public IP address"
        return
    if not is_accelerator_node_group(resource):
        return
    for template in graph.resolve(resource, resource.get("launchTemplate", "id"), t.LAUNCH_TEMPLATE):
        for interface in as_list(template.get("networkInterfaces")):
            if as_bool(get(interface, "associatePublicIpAddress")):
                yield f"launch template {template.name} associates a public IP address"
                break
    for subnet_id in as_list(resource.get("subnetIds")):
        for subnet in graph.with_identity(subnet_id, t.SUBNET):
            if as_bool(subnet.get("mapPublicIpOnLaunch")):
                yield f"subnet {subnet.name} maps public IPs on launch"


RULE = Rule(
    id="AP-EC2-004",
    name="ec2-no-public-ip-on-accelerator-nodes",
    description="Checks whether accelerator node groups and instances can get a public IP address.",
    family=Family.compute,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Place accelerator nodes in private subnets; set associate_public_ip_address to false.",
    resource_types=frozenset({t.EKS_NODE_GROUP, t.INSTANCE}),
    check=check,
    scope=Scope.stack,
    categories=("network-exposure",),
)
