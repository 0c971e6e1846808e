"""AP-NET-003: EFA interfaces carry a security group allowing all traffic to and from itself.

EFA's OS-bypass traffic is dropped unless a group on the interface allows all inbound and outbound
traffic within the group (EFA user guide, "Prepare an EFA-enabled security group").
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.network.groups import interface_groups, is_self_referencing_all_traffic
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    efa_interfaces = [groups for efa, groups in interface_groups(graph, resource) if efa]
    if not efa_interfaces:
        return
    ok = {g.urn for groups in efa_interfaces for g in groups if all(is_self_referencing_all_traffic(graph, g))}
    missing = sum(1 for groups in efa_interfaces if not any(g.urn in ok for g in groups))
    if missing:
        yield f"{missing} of {len(efa_interfaces)} EFA interfaces have no security group allowing all traffic " \
              "to and from itself"


RULE = Rule(
    id="AP-NET-003",
    name="efa-security-group-self-referencing",
    description="Checks whether every EFA interface has a security group with self-referencing all-traffic "
    "ingress and egress rules.",
    family=Family.network,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Attach a group with ingress and egress rules (ip_protocol -1) referencing the group itself.",
    resource_types=frozenset({t.LAUNCH_TEMPLATE}),
    check=check,
    scope=Scope.stack,
    categories=("network", "efa"),
    references=("https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html",),
)
