"""Which part of the declaration each resource comes from, so a finding points at a line.

`program.build()` and `k8s.layer.build_kubernetes()` name every top-level component after the
declaration element it is built from (`<platform>-<pool>`, `<platform>-svc-<service>`, ...); every
other resource is a descendant of one. `declaration_paths()` states that naming as a map from
(component type, logical name) to the element's path under `accelplane:platform`, and
`declaration_path()` walks a resource's parents up to its component. A test checks that every
top-level component of the example stacks is in the map, so a new component cannot silently point
at the top of the file.

A service with `backends` maps each backend's own resources (its target group, Deployment, Service,
HPA, PDB, TargetGroupBinding, GKE policies) to that backend's entry, and its listener rule to its
`path_prefix`: a finding on the Inferentia2 canary's Deployment points at the canary, not at the
service. The names follow `k8s/inference_service.py`; each cloud's `provenance.py` states its own.

A rule whose fix is a field of an enclosing element (`Rule.fix_field`: a service's `rate_limit`, a
finding on one of its backends' resources) points at that field, or at the element that can declare
it when the field is missing (`fix_lines`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from accelplane.cloud_support import cloud_support
from accelplane.config.yaml_source import PathPart
from accelplane.declaration import InferenceService, Platform
from accelplane.rules import types as t
from accelplane.rules.rule import Finding
from accelplane.rules.view import Resource

Path = tuple[PathPart, ...]
_K8S = "accelplane:k8s:"
# A backend's resources under its service component: (type token, logical-name suffix).
_BACKEND_CHILDREN = (
    ("kubernetes:apps/v1:Deployment", "deployment"),
    (t.K8S_SERVICE, "service"),
    ("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "hpa"),
    ("kubernetes:policy/v1:PodDisruptionBudget", "pdb"),
    ("kubernetes:elbv2.k8s.aws/v1beta1:TargetGroupBinding", "tgb"),
    ("kubernetes:networking.gke.io/v1:HealthCheckPolicy", "health-check"),
    ("kubernetes:networking.gke.io/v1:GCPBackendPolicy", "backend-policy"),
)


def declaration_paths(platform: Platform) -> dict[tuple[str, str], Path]:
    """(component type token, logical name) → path of the declaration element it is built from:
    the cloud layer's components from the stack's cloud, the Kubernetes layer's and the bare-metal
    groups' from here."""
    name = platform.name
    kubernetes = platform.kubernetes
    paths: dict[tuple[str, str], Path] = dict(cloud_support(platform.cloud).declaration_paths(platform))
    paths.update({
        ("pulumi:providers:kubernetes", f"{name}-k8s"): ("kubernetes",),
        (f"{_K8S}PriorityClasses", f"{name}-priorities"): ("kubernetes",),
        (f"{_K8S}AcceleratorEnablement", f"{name}-accelerators"): ("node_pools",),
        (f"{_K8S}BatchAddons", f"{name}-batch"): ("kubernetes", "addons_profile"),
        (f"{_K8S}AcceleratorMonitoring", f"{name}-monitoring"): ("kubernetes", "addons_profile"),
        (f"{_K8S}NeuronMonitor", f"{name}-neuron-monitor"): ("software_profiles",),
        (f"{_K8S}AcceleratorQueues", f"{name}-queues"): ("kubernetes", "teams"),
    })
    for index, workload in enumerate(platform.workloads):
        paths.setdefault((f"{_K8S}WorkloadNamespace", f"{name}-ns-{workload.namespace}"), ("workloads", index))
    if kubernetes is not None:
        for index, team in enumerate(kubernetes.teams):
            paths.setdefault((f"{_K8S}WorkloadNamespace", f"{name}-ns-{team.namespace}"),
                             ("kubernetes", "teams", index))
        for index, service in enumerate(kubernetes.inference_services):
            paths.update(_service_paths(platform, service, index))
        for index, template in enumerate(kubernetes.training_templates):
            paths[(f"{_K8S}TrainingJobTemplate", f"{name}-train-{template.node_pool}")] = (
                "kubernetes", "training_templates", index)
    if platform.bare_metal is not None:
        for index, group in enumerate(platform.bare_metal.groups):
            paths[(t.BARE_METAL_GROUP, group.name)] = ("bare_metal", "groups", index)
    return paths


def _service_paths(platform: Platform, service: InferenceService, index: int) -> dict[tuple[str, str], Path]:
    component = f"{platform.name}-svc-{service.name}"
    at: Path = ("kubernetes", "inference_services", index)
    paths: dict[tuple[str, str], Path] = {(f"{_K8S}InferenceService", component): at}
    for position, backend in enumerate(service.backends or []):  # an inline backend is the service itself
        # The backend keeping the service's name keeps the component's logical names.
        prefix = component if service.object_name(backend) == service.name else f"{component}-{backend.name}"
        for type_token, suffix in _BACKEND_CHILDREN:
            paths[(type_token, f"{prefix}-{suffix}")] = (*at, "backends", position)
    return paths


def declaration_path(
    urn: str, parents: Mapping[str, tuple[str, str, str | None]], paths: Mapping[tuple[str, str], Path],
) -> Path | None:
    """The declaration path of the resource `urn`: its own entry, else its nearest ancestor's.
    `parents` maps a URN to (type, name, parent URN)."""
    seen: set[str] = set()
    current: str | None = urn
    while current is not None and current not in seen:
        seen.add(current)
        entry = parents.get(current)
        if entry is None:
            return None
        type_token, name, parent = entry
        found = paths.get((type_token, name))
        if found is not None:
            return found
        current = parent
    return None


def finding_lines(
    platform: Platform, line_of: Callable[..., int | None], resources: Iterable[Resource],
) -> dict[str, int]:
    """URN → line of the stack file declaring it, for every resource of `resources` (rule view
    resources: `urn`, `type`, `name`, `parent`); `line_of(*path)` reads the stack file's node tree."""
    resources = list(resources)
    paths = declaration_paths(platform)
    parents = {r.urn: (r.type, r.name, r.parent) for r in resources}
    out: dict[str, int] = {}
    for resource in resources:
        path = declaration_path(resource.urn, parents, paths)
        line = line_of(*path) if path is not None else line_of()
        if line is not None:
            out[resource.urn] = line
    return out


def fix_path(platform: Platform, path: Path, field: str) -> Path | None:
    """`field` of the deepest element along `path` whose declaration model has it; None when none does."""
    elements: list[object] = [platform]
    current: object = platform
    for part in path:
        try:
            current = current[part] if isinstance(part, int) else getattr(current, str(part))  # type: ignore[index]
        except (AttributeError, IndexError, KeyError, TypeError):
            break
        elements.append(current)
    for depth in range(len(elements) - 1, -1, -1):
        if field in getattr(type(elements[depth]), "model_fields", {}):
            return (*path[:depth], field)
    return None


def fix_lines(
    platform: Platform, line_of: Callable[..., int | None], resources: Iterable[Resource], findings: Iterable[Finding],
) -> dict[tuple[str, str], int]:
    """(rule id, URN) -> line, for the findings of rules with a `fix_field`: that field's line, or the
    line of the element that can declare it when the stack file leaves it out."""
    paths = declaration_paths(platform)
    parents = {r.urn: (r.type, r.name, r.parent) for r in resources}
    out: dict[tuple[str, str], int] = {}
    for finding in findings:
        field = finding.rule.fix_field
        path = declaration_path(finding.urn, parents, paths) if field else None
        at = fix_path(platform, path, field) if path is not None and field else None
        line = line_of(*at) if at is not None else None
        if line is not None:
            out[(finding.rule.id, finding.urn)] = line
    return out
