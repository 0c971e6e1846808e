"""AP-NET-002: no SSH (22) or RDP (3389) from anywhere."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.network.groups import entries
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

_ADMIN_PORTS = {22: "SSH", 3389: "RDP"}


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for entry in entries(resource):
        if entry.direction == "ingress" and entry.world:
            for port, what in _ADMIN_PORTS.items():
                if entry.covers(port):
                    yield f"{what} ({port}) open to the internet ({entry.describe()})"


RULE = Rule(
    id="AP-NET-002",
    name="sg-no-ssh-rdp-from-anywhere",
    description="Checks whether a security group opens SSH or RDP to 0.0.0.0/0 or ::/0.",
    family=Family.network,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Reach nodes with SSM Session Manager; drop the rule.",
    resource_types=frozenset({t.INGRESS_RULE, t.SECURITY_GROUP_RULE, t.SECURITY_GROUP}),
    check=check,
    categories=("network-exposure",),
)
