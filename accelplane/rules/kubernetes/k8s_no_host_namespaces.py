"""AP-K8S-002: no host network, PID or IPC namespace, for any workload.

NCCL over EFA does not need `hostNetwork`: the EFA device plugin hands the interface to the pod. The
platform's device plugins run inside pinned Helm releases, which the rules do not see as workloads;
no label exempts a workload (`platform_components`).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import pod_spec
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    spec = pod_spec(resource)
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if as_bool(get(spec, key)):
            yield f"pod uses {key}"


RULE = Rule(
    id="AP-K8S-002",
    name="k8s-no-host-namespaces",
    description="Checks whether a workload shares the host's network, PID or IPC namespace.",
    family=Family.kubernetes,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Remove hostNetwork/hostPID/hostIPC; use the EFA device plugin for fabric access.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("kubernetes", "isolation"),
)
