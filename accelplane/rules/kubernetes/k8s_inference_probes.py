"""AP-K8S-006: inference containers have readiness and liveness probes.

Without readiness, the load balancer sends requests to a server still loading weights; without
liveness, a hung server (a wedged GPU context) keeps its slot.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import is_inference, pod_spec
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not is_inference(resource, graph):
        return
    for container in as_list(get(pod_spec(resource), "containers")):
        missing = [p for p in ("readinessProbe", "livenessProbe") if get(container, p) is None]
        if missing:
            yield f"inference container {as_str(get(container, 'name'), '?')} has no {' or '.join(missing)}"


RULE = Rule(
    id="AP-K8S-006",
    name="k8s-inference-probes",
    description="Checks whether inference containers define readiness and liveness probes.",
    family=Family.kubernetes,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Add readinessProbe and livenessProbe (HTTP on the health path the load balancer uses).",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("kubernetes", "availability"),
)
