"""Cross-field checks of the `kubernetes` section: references, versions present, sane bounds.

What the add-ons profile must pin and which node plugins a pool's profile must pin depend on the
cloud (`CloudSupport.addon_fields`, `vendor_plugin_fields`; a pool's `fabric_plugin_field`): EKS runs the AWS
Load Balancer Controller and the vendors' device-plugin charts; GKE runs its own device plugins for
GPUs and TPUs and its own Gateway controller, so a GCP stack pins neither. What only a cloud's facts
can judge (an ALB's target groups per forward, a TPU slice's VMs) is in that cloud's `checks.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from accelplane.accelerator_vendors import vendor_of
from accelplane.cloud_support import Issue, cloud_support, known_clouds
from accelplane.config.training_launcher import node_count_problems
from accelplane.declaration import (
    PROMETHEUS_METRICS,
    Backend,
    InferenceService,
    NodePool,
    Platform,
    Purpose,
    TrainingTemplate,
    WorkloadKind,
)
from accelplane.suggest import did_you_mean


def kubernetes_problems(platform: Platform) -> Iterator[Issue]:
    layer = platform.kubernetes
    if layer is None:
        return
    base: tuple[str | int, ...] = ("kubernetes",)
    addons = platform.software_profiles.get(layer.addons_profile)
    if addons is None:
        yield (*base, "addons_profile"), f"no software profile named {layer.addons_profile!r}"
    else:
        for field in cloud_support(platform.cloud).addon_fields():
            if getattr(addons, field) is None:
                yield (
                    ("software_profiles", layer.addons_profile, field),
                    f"the add-ons profile must pin {field} (a chart version)",
                )
    yield from _plugin_versions(platform)
    pools = {pool.name: pool for pool in platform.node_pools}
    workloads = {workload.name: workload for workload in platform.workloads}
    for index, service in enumerate(layer.inference_services):
        path = (*base, "inference_services", index)
        yield from _service_problems(platform, service, path)
    yield from _exposed_routes(platform)
    for index, template in enumerate(layer.training_templates):
        path = (*base, "training_templates", index)
        pool = pools.get(template.node_pool)
        if pool is None or pool.purpose is not Purpose.training or pool.accelerator is None:
            yield (*path, "node_pool"), f"{template.node_pool!r} is not an accelerator training pool"
        workload = workloads.get(template.workload)
        if workload is None or workload.kind is not WorkloadKind.training:
            yield (*path, "workload"), f"{template.workload!r} is not a declared training workload"
        elif not any(grant.role.value == "checkpoints" for grant in workload.buckets):
            yield (*path, "workload"), f"workload {template.workload!r} has no checkpoints bucket grant to resume from"
    for index, team in enumerate(layer.teams):
        for pool_name in team.quotas:
            pool = pools.get(pool_name)
            if pool is None or pool.accelerator is None:
                yield ("kubernetes", "teams", index, "quotas", pool_name), f"{pool_name!r} is not an accelerator pool"


@dataclass(frozen=True)
class SizedTemplate:
    index: int
    template: TrainingTemplate
    pool: NodePool
    nodes: int  # the template's own `nodes`, or its pool's maximum


def sized_training_templates(platform: Platform, pool_nodes: Callable[[NodePool], int]) -> Iterator[SizedTemplate]:
    """Each training template on an accelerator training pool with the nodes its job runs on: its
    `nodes`, else `pool_nodes(pool)` (the pool's maximum in nodes, which only the cloud can count).
    What the checks here name (a template on another pool) is skipped."""
    layer = platform.kubernetes
    pools = {pool.name: pool for pool in platform.node_pools}
    for index, template in enumerate(layer.training_templates if layer else []):
        pool = pools.get(template.node_pool)
        if pool is not None and pool.purpose is Purpose.training and pool.accelerator is not None:
            yield SizedTemplate(index, template, pool, template.nodes or pool_nodes(pool))


def launcher_problems(sized: SizedTemplate) -> Iterator[Issue]:
    """A launcher node count in the command that is not the job's (see `training_launcher`)."""
    source = "its nodes" if sized.template.nodes is not None else f"pool {sized.pool.name}'s maximum"
    for message in node_count_problems(sized.template.command, sized.nodes, source):
        yield ("kubernetes", "training_templates", sized.index, "command"), message


# Kubernetes Service names are DNS-1035 labels (https://kubernetes.io/docs/concepts/overview/working-with-objects/names/).
SERVICE_NAME_LIMIT = 63


def _service_problems(platform: Platform, service: InferenceService, path: tuple[str | int, ...]) -> Iterator[Issue]:
    pools = {pool.name: pool for pool in platform.node_pools}
    workload = next((w for w in platform.workloads if w.name == service.workload), None)
    if workload is None or workload.kind is not WorkloadKind.inference:
        yield (*path, "workload"), f"{service.workload!r} is not a declared inference workload"
    inline = service.backends is None
    names = {backend.name for backend in service.serving_backends}
    for position, backend in enumerate(service.serving_backends):
        at = path if inline else (*path, "backends", position)
        yield from _backend_problems(platform, service, backend, pools.get(backend.node_pool), at)
    endpoint = platform.inference_endpoint
    if service.expose and endpoint is None:
        yield (*path, "expose"), "no inference_endpoint is declared to expose the service through"
    elif service.expose and endpoint is not None and service.port != endpoint.target_port:
        yield (*path, "port"), f"expected the endpoint's target_port {endpoint.target_port}, got {service.port}"
    rollout = service.rollout
    if rollout is None:
        return
    at = (*path, "rollout")
    yield from _metrics_source(platform.cloud, rollout.metrics, (*at, "metrics"))
    if rollout.canary is not None and rollout.canary not in names:
        yield (*at, "canary"), f"expected one of the backends ({', '.join(sorted(names))}), got {rollout.canary!r}"
    elif rollout.canary == rollout.baseline:
        yield (*at, "canary"), "the canary must be another backend than the baseline"
    elif rollout.canary is None and service.canary is None:
        others = sorted(names - {rollout.baseline})
        yield ((*at, "canary"), "name the canary: the rollout moves traffic to one backend, and "
               f"{len(others)} backends besides the baseline are declared ({', '.join(others) or 'none'})")


def _metrics_source(cloud: str, metrics: str, at: tuple[str | int, ...]) -> Iterator[Issue]:
    """The rollout's metrics: the cluster's Prometheus, or this cloud's own load-balancer metrics. Another
    cloud's source is named as that cloud's, so the message says what to use instead."""
    own = cloud_support(cloud).load_balancer_metrics
    allowed = [PROMETHEUS_METRICS, *([own] if own else [])]
    if metrics in allowed:
        return
    elsewhere = next((other for other in known_clouds() if other != cloud
                      and cloud_support(other).load_balancer_metrics == metrics), None)
    if elsewhere is not None:
        yield at, f"{metrics} reads {elsewhere}'s load-balancer metrics: use {' or '.join(allowed)} on {cloud}"
    else:
        yield at, f"expected {' or '.join(allowed)}, got {metrics!r}{did_you_mean(metrics, allowed)}"


def _backend_problems(
    platform: Platform, service: InferenceService, backend: Backend, pool: NodePool | None, at: tuple[str | int, ...]
) -> Iterator[Issue]:
    if pool is None or pool.purpose is not Purpose.inference or pool.accelerator is None:
        yield (*at, "node_pool"), f"{backend.node_pool!r} is not an accelerator inference pool"
    if backend.software_profile is not None and backend.software_profile not in platform.software_profiles:
        yield (*at, "software_profile"), f"no software profile named {backend.software_profile!r}"
    scaling = backend.autoscaling
    if scaling.min_replicas > scaling.max_replicas:
        yield (*at, "autoscaling"), "expected min_replicas <= max_replicas"
    name = service.object_name(backend)
    if len(name) > SERVICE_NAME_LIMIT:
        yield (*at, "name"), f"the backend's Kubernetes name {name!r} is longer than {SERVICE_NAME_LIMIT} characters"


def _exposed_routes(platform: Platform) -> Iterator[Issue]:
    """One endpoint, one service per path prefix: two services on one prefix would share its requests."""
    layer = platform.kubernetes
    assert layer is not None
    seen: dict[str, str] = {}
    for index, service in enumerate(layer.inference_services):
        if not service.expose:
            continue
        if service.path_prefix in seen:
            yield (("kubernetes", "inference_services", index, "path_prefix"),
                   f"service {seen[service.path_prefix]!r} is already exposed on {service.path_prefix!r}")
        seen.setdefault(service.path_prefix, service.name)


def _plugin_versions(platform: Platform) -> Iterator[Issue]:
    """Each vendor's plugins run once per cluster: every pool of a vendor must pin the same version."""
    chosen: dict[str, tuple[str, str]] = {}
    support = cloud_support(platform.cloud)
    for index, pool in enumerate(platform.node_pools):
        profile = platform.pool_profile(pool)
        if pool.accelerator is None or profile is None:
            continue
        # The cloud names the plugins it runs for the vendor: none where it runs its own (GKE) or has none.
        fields = list(support.vendor_plugin_fields(vendor_of(pool.accelerator)))
        fabric_field = pool.fabric_plugin_field()
        if fabric_field:
            fields.append(fabric_field)
        for field in fields:
            value = getattr(profile, field)
            where = ("software_profiles", pool.software_profile or "", field)
            if value is None:
                yield where, f"pool {pool.name} ({pool.accelerator}) runs on this profile, which must pin {field}"
                continue
            first = chosen.setdefault(field, (value, pool.name))
            if first[0] != value:
                yield (
                    ("node_pools", index, "software_profile"),
                    f"{field} {value} differs from {first[0]} on pool {first[1]}; one version runs per cluster",
                )
