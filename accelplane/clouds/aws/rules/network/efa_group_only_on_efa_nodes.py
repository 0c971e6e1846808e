"""AP-NET-004: a group opened for EFA (all traffic within itself) is used only by EFA interfaces.

Such a group lets every member reach every port of every other member; on a non-EFA node that is
lateral movement with no fabric to justify it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.network.groups import interface_groups, is_self_referencing_all_traffic
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def _users(graph: ReferenceGraph) -> dict[str, dict[str, set[str]]]:
    """group URN -> {"efa": launch templates, "other": launch templates} using it on an interface."""
    users: dict[str, dict[str, set[str]]] = defaultdict(lambda: {"efa": set(), "other": set()})
    for template in graph.of_type(t.LAUNCH_TEMPLATE):
        for efa, groups in interface_groups(graph, template):
            for group in groups:
                users[group.urn]["efa" if efa else "other"].add(template.name)
    return users


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    ingress, _ = is_self_referencing_all_traffic(graph, resource)
    if not ingress:
        return
    users = graph.memo("efa-group-users", _users).get(resource.urn)
    if users and users["efa"] and users["other"]:
        yield f"the EFA group is also on non-EFA interfaces of {', '.join(sorted(users['other']))}"


RULE = Rule(
    id="AP-NET-004",
    name="efa-group-only-on-efa-nodes",
    description="Checks whether a security group open to itself for EFA is attached only to EFA interfaces.",
    family=Family.network,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Give non-EFA pools their own group with only the ports they need.",
    resource_types=frozenset({t.SECURITY_GROUP}),
    check=check,
    scope=Scope.stack,
    categories=("network", "efa"),
)
