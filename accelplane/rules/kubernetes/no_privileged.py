"""AP-K8S-001: no privileged containers outside device plugins, drivers and device monitors.

Device monitors are exempt only as DaemonSets in kube-system (`pods.is_device_monitor`).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import Graph
from accelplane.rules.kubernetes.pods import containers, is_device_monitor, is_node_agent
from accelplane.rules.model import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get


def check(resource: Resource, graph: Graph) -> Iterator[str]:
    if is_node_agent(resource) or is_device_monitor(resource):
        return
    for container in containers(resource):
        name = as_str(get(container, "name"), "?")
        if as_bool(get(container, "securityContext", "privileged")):
            yield f"container {name} is privileged"
        added = {as_str(c) for c in as_list(get(container, "securityContext", "capabilities", "add"))}
        if added & {"SYS_ADMIN", "ALL"}:
            yield f"container {name} adds {', '.join(sorted(added & {'SYS_ADMIN', 'ALL'}))}"


RULE = Rule(
    id="AP-K8S-001",
    name="k8s-no-privileged-containers",
    description="Checks whether a workload runs privileged containers (or adds SYS_ADMIN) outside device "
    "plugins, drivers and kube-system device monitors.",
    family=Family.kubernetes,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Drop privileged; request accelerators through the device plugin's extended resource.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("kubernetes", "isolation"),
)
