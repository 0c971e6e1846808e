"""AP-K8S-001: no privileged containers outside the platform's own device monitor.

The one exemption is by identity (`platform_components`): the neuron-monitor DaemonSet in
kube-system running its profile-pinned image by digest. No label exempts anything.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.platform_components import not_exempt_because, privileged_component
from accelplane.rules.kubernetes.pods import containers
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if privileged_component(resource) is not None:
        return
    problems = []
    for container in containers(resource):
        name = as_str(get(container, "name"), "?")
        if as_bool(get(container, "securityContext", "privileged")):
            problems.append(f"container {name} is privileged")
        added = {as_str(c) for c in as_list(get(container, "securityContext", "capabilities", "add"))}
        if added & {"SYS_ADMIN", "ALL"}:
            problems.append(f"container {name} adds {', '.join(sorted(added & {'SYS_ADMIN', 'ALL'}))}")
    note = not_exempt_because(resource) if problems else None
    for problem in problems:
        yield f"{problem} ({note})" if note else problem


RULE = Rule(
    id="AP-K8S-001",
    name="k8s-no-privileged-containers",
    description="Checks whether a workload runs privileged containers (or adds SYS_ADMIN) other than the "
    "platform's own device monitor (neuron-monitor in kube-system, its image pinned by digest).",
    family=Family.kubernetes,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Drop privileged; request accelerators through the device plugin's extended resource. Device "
    "plugins belong in the platform's pinned Helm releases, not in workload namespaces.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("kubernetes", "isolation"),
)
