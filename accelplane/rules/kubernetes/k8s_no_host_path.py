"""AP-K8S-003: no hostPath volumes, for any workload.

The platform's device plugins mount the kubelet's device-plugin directory inside pinned Helm
releases, which the rules do not see as workloads; no label exempts a workload (`platform_components`).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import pod_spec
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for volume in as_list(get(pod_spec(resource), "volumes")):
        path = get(volume, "hostPath", "path")
        if path is not None:
            yield f"volume {as_str(get(volume, 'name'), '?')} mounts the host path {as_str(path)}"


RULE = Rule(
    id="AP-K8S-003",
    name="k8s-no-host-path",
    description="Checks whether a workload mounts hostPath volumes.",
    family=Family.kubernetes,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Use emptyDir, a PVC or a CSI volume (FSx, S3 mountpoint) instead of hostPath.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("kubernetes", "isolation"),
)
