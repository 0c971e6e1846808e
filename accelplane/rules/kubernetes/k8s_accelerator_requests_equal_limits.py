"""AP-K8S-004: accelerator resources are requested with limits equal to requests.

Extended resources cannot be overcommitted: Kubernetes rejects a pod whose request differs from its
limit, and a request without a limit is refused at admission. Catching it here fails the preview,
not the rollout.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import ACCELERATOR_RESOURCES, containers
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str, get, mapping


def _quantity(value: object) -> str | None:
    if value is None:
        return None
    text = str(value)
    return str(int(float(text))) if text.replace(".", "", 1).isdigit() and float(text).is_integer() else text


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for container in containers(resource):
        name = as_str(get(container, "name"), "?")
        requests = mapping(get(container, "resources", "requests"))
        limits = mapping(get(container, "resources", "limits"))
        for key in sorted((set(requests) | set(limits)) & ACCELERATOR_RESOURCES):
            request, limit = _quantity(requests.get(key)), _quantity(limits.get(key))
            if limit is None:
                yield f"container {name}: {key} requested ({request}) without a limit"
            elif request is not None and request != limit:
                yield f"container {name}: {key} request {request} differs from limit {limit}"


RULE = Rule(
    id="AP-K8S-004",
    name="k8s-accelerator-requests-equal-limits",
    description="Checks whether accelerator extended resources have limits, equal to their requests.",
    family=Family.kubernetes,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set resources.limits for the accelerator (requests default to limits) and keep them equal.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("kubernetes", "scheduling"),
)
