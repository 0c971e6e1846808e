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
service. The names follow `aws/inference_endpoint.py` and `k8s/inference_service.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from accelplane.config.model import Platform
from accelplane.config.yaml_source import PathPart
from accelplane.rules import types as t
from accelplane.rules.view import Resource

Path = tuple[PathPart, ...]
_AWS = "accelplane:aws:"
_GCP = "accelplane:gcp:"
_K8S = "accelplane:k8s:"
# A backend's resources under its service component: (type token, logical-name suffix).
_BACKEND_CHILDREN = (
    ("kubernetes:apps/v1:Deployment", "deployment"),
    ("kubernetes:core/v1:Service", "service"),
    ("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "hpa"),
    ("kubernetes:policy/v1:PodDisruptionBudget", "pdb"),
    ("kubernetes:elbv2.k8s.aws/v1beta1:TargetGroupBinding", "tgb"),
    ("kubernetes:networking.gke.io/v1:HealthCheckPolicy", "health-check"),
    ("kubernetes:networking.gke.io/v1:GCPBackendPolicy", "backend-policy"),
)


def declaration_paths(platform: Platform) -> dict[tuple[str, str], Path]:
    """(component type token, logical name) → path of the declaration element it is built from."""
    name = platform.name
    kubernetes = platform.kubernetes
    paths: dict[tuple[str, str], Path] = {
        (f"{_AWS}EncryptionKey", f"{name}-eks"): ("kubernetes_version",),
        (f"{_AWS}EncryptionKey", f"{name}-data"): ("buckets",),
        (f"{_AWS}EncryptionKey", f"{name}-secrets"): ("secrets",),
        (f"{_AWS}PlatformNetwork", f"{name}-network"): ("network",),
        (f"{_AWS}EksCluster", f"{name}-eks"): ("kubernetes_version",),
        # The groups' world-facing rules come from the endpoint's allowed CIDRs.
        (f"{_AWS}PlatformSecurityGroups", f"{name}-sg"): (
            ("inference_endpoint", "allowed_cidrs") if platform.inference_endpoint else ("network",)
        ),
        (f"{_AWS}NodeRole", f"{name}-node"): ("node_pools",),
        (f"{_AWS}InferenceEndpoint", f"{name}-inference"): ("inference_endpoint",),
        (f"{_AWS}SecretStore", f"{name}-secrets"): ("secrets",),
        (f"{_AWS}SecretAccess", f"{name}-secret-access"): ("secrets",),
        ("pulumi:providers:aws", f"{name}-aws"): ("region",),
        ("pulumi:providers:kubernetes", f"{name}-k8s"): ("kubernetes",),
        (f"{_K8S}PriorityClasses", f"{name}-priorities"): ("kubernetes",),
        (f"{_K8S}AcceleratorEnablement", f"{name}-accelerators"): ("node_pools",),
        (f"{_K8S}LoadBalancerController", f"{name}-lbc"): ("kubernetes", "addons_profile"),
        (f"{_K8S}BatchAddons", f"{name}-batch"): ("kubernetes", "addons_profile"),
        (f"{_K8S}AcceleratorMonitoring", f"{name}-monitoring"): ("kubernetes", "addons_profile"),
        (f"{_K8S}NeuronMonitor", f"{name}-neuron-monitor"): ("software_profiles",),
        (f"{_K8S}AcceleratorQueues", f"{name}-queues"): ("kubernetes", "teams"),
    }
    paths.update(_gcp_paths(platform))
    for index, pool in enumerate(platform.node_pools):
        paths[(f"{_AWS}AcceleratorNodePool", f"{name}-{pool.name}")] = ("node_pools", index)
        paths[(f"{_GCP}AcceleratorNodePool", f"{name}-{pool.name}")] = ("node_pools", index)
        for slice_index in range(pool.scaling.max if pool.tpu_topology else 0):  # one pool per TPU slice
            paths[(f"{_GCP}AcceleratorNodePool", f"{name}-{pool.name}-s{slice_index}")] = ("node_pools", index)
    for index, bucket in enumerate(platform.buckets):
        for area in (_AWS, _GCP):
            paths[(f"{area}SecureBucket", f"{name}-{bucket.role.value.replace('_', '-')}")] = ("buckets", index)
    for index, workload in enumerate(platform.workloads):
        paths[(f"{_AWS}WorkloadRole", f"{name}-{workload.name}")] = ("workloads", index)
        paths[(f"{_GCP}WorkloadAccess", f"{name}-{workload.name}")] = ("workloads", index)
        paths.setdefault((f"{_K8S}WorkloadNamespace", f"{name}-ns-{workload.namespace}"), ("workloads", index))
    if kubernetes is not None:
        for index, team in enumerate(kubernetes.teams):
            paths.setdefault((f"{_K8S}WorkloadNamespace", f"{name}-ns-{team.namespace}"),
                             ("kubernetes", "teams", index))
        for index, service in enumerate(kubernetes.inference_services):
            component = f"{name}-svc-{service.name}"
            at: Path = ("kubernetes", "inference_services", index)
            paths[(f"{_K8S}InferenceService", component)] = at
            paths[("aws:lb/listenerRule:ListenerRule", f"{name}-inference-rule-{service.name}")] = (*at, "path_prefix")
            for position, backend in enumerate(service.serving_backends):
                # The inline backend is the service itself (its resources are found through the component).
                element: Path = at if service.backends is None else (*at, "backends", position)
                target_group = f"{name}-inference-tg-{service.name}-{backend.name}"
                paths[("aws:lb/targetGroup:TargetGroup", target_group)] = element
                if service.backends is None:
                    continue
                # The backend keeping the service's name keeps the component's logical names.
                prefix = component if service.object_name(backend) == service.name else f"{component}-{backend.name}"
                for type_token, suffix in _BACKEND_CHILDREN:
                    paths[(type_token, f"{prefix}-{suffix}")] = element
        for index, template in enumerate(kubernetes.training_templates):
            paths[(f"{_K8S}TrainingJobTemplate", f"{name}-train-{template.node_pool}")] = (
                "kubernetes", "training_templates", index)
    if platform.bare_metal is not None:
        for index, group in enumerate(platform.bare_metal.groups):
            paths[(t.BARE_METAL_GROUP, group.name)] = ("bare_metal", "groups", index)
    return paths


def _gcp_paths(platform: Platform) -> dict[tuple[str, str], Path]:
    name = platform.name
    return {
        ("pulumi:providers:gcp", f"{name}-gcp"): ("gcp", "project"),
        (f"{_GCP}ServiceAgents", f"{name}-agents"): ("gcp", "project"),
        (f"{_GCP}NodeServiceAccount", f"{name}-nodes"): ("node_pools",),
        (f"{_GCP}KeyRing", f"{name}-keys"): ("region",),
        (f"{_GCP}EncryptionKey", f"{name}-gke"): ("kubernetes_version",),
        (f"{_GCP}EncryptionKey", f"{name}-data"): ("buckets",),
        (f"{_GCP}EncryptionKey", f"{name}-secrets"): ("secrets",),
        (f"{_GCP}PlatformNetwork", f"{name}-network"): ("network", "vpc"),
        (f"{_GCP}GkeCluster", f"{name}-gke"): ("gcp", "gke_version") if platform.gcp and platform.gcp.gke_version
        else ("kubernetes_version",),
        (f"{_GCP}InferenceEndpoint", f"{name}-inference"): ("inference_endpoint",),
        (f"{_K8S}InferenceGateway", f"{name}-gateway"): ("inference_endpoint",),
        (f"{_GCP}SecretStore", f"{name}-secrets"): ("secrets",),
    }


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
