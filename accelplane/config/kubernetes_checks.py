"""Cross-field checks of the `kubernetes` section: references, versions present, sane bounds, per cloud.

What the add-ons profile must pin and which node plugins a pool's profile must pin depend on the
cloud: EKS runs the AWS Load Balancer Controller and the vendors' device-plugin charts; GKE runs its
own device plugins for GPUs and TPUs and its own Gateway controller, so a GCP stack pins neither.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.accelerator_vendors import node_facts, vendor_of
from accelplane.config import gcp_catalog
from accelplane.config.model import (
    Backend,
    Cloud,
    InferenceService,
    MetricsSource,
    NodePool,
    Platform,
    Purpose,
    WorkloadKind,
)

Issue = tuple[tuple[str | int, ...], str]

# Chart versions the cluster-wide add-ons need, read from `kubernetes.addons_profile`.
ADDON_FIELDS: dict[Cloud, tuple[str, ...]] = {
    Cloud.aws: ("aws_load_balancer_controller", "kueue", "jobset", "kube_prometheus_stack"),
    # GKE's Gateway controller exposes the inference services: no controller chart to pin.
    Cloud.gcp: ("kueue", "jobset", "kube_prometheus_stack"),
}
# Chart versions (and images of node agents the program runs itself) each accelerator vendor's pools
# need from their own profile. The Neuron chart deploys no exporter: without neuron-monitor the
# Neuron PodMonitor and alerts would watch nothing, so its image is required like a chart version.
# GKE installs and upgrades the GPU and TPU device plugins itself: nothing to pin on Google Cloud.
VENDOR_PLUGIN_FIELDS: dict[Cloud, dict[str, tuple[str, ...]]] = {
    Cloud.aws: {
        "nvidia": ("nvidia_device_plugin", "dcgm_exporter"),
        "aws": ("neuron_helm_chart", "neuron_monitor_image"),
    },
    Cloud.gcp: {},
}
EFA_PLUGIN_FIELD = "efa_device_plugin"


def addon_fields(cloud: Cloud) -> tuple[str, ...]:
    return ADDON_FIELDS[cloud]


def vendor_plugin_fields(cloud: Cloud, vendor: str) -> tuple[str, ...]:
    return VENDOR_PLUGIN_FIELDS[cloud].get(vendor, ())


def kubernetes_problems(platform: Platform) -> Iterator[Issue]:
    layer = platform.kubernetes
    if layer is None:
        return
    base: tuple[str | int, ...] = ("kubernetes",)
    addons = platform.software_profiles.get(layer.addons_profile)
    if addons is None:
        yield (*base, "addons_profile"), f"no software profile named {layer.addons_profile!r}"
    else:
        for field in addon_fields(platform.cloud):
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
        elif template.nodes is not None:
            yield from _template_nodes(platform, pool, template.nodes, (*path, "nodes"))
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


# An ALB forward action spreads a rule's requests over at most five target groups
# (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-listeners.html#forward-actions).
ALB_TARGET_GROUPS_PER_ACTION = 5
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
    if (service.expose and platform.cloud is Cloud.aws and service.backends is not None
            and len(service.backends) > ALB_TARGET_GROUPS_PER_ACTION):
        yield ((*path, "backends"), f"an ALB forwards one route to at most {ALB_TARGET_GROUPS_PER_ACTION} target "
               f"groups, got {len(service.backends)} backends")
    rollout = service.rollout
    if rollout is None:
        return
    at = (*path, "rollout")
    if rollout.canary is not None and rollout.canary not in names:
        yield (*at, "canary"), f"expected one of the backends ({', '.join(sorted(names))}), got {rollout.canary!r}"
    elif rollout.canary == rollout.baseline:
        yield (*at, "canary"), "the canary must be another backend than the baseline"
    elif rollout.canary is None and service.canary is None:
        others = sorted(names - {rollout.baseline})
        yield ((*at, "canary"), "name the canary: the rollout moves traffic to one backend, and "
               f"{len(others)} backends besides the baseline are declared ({', '.join(others) or 'none'})")
    if rollout.metrics is MetricsSource.cloudwatch:
        if platform.cloud is not Cloud.aws:
            yield (*at, "metrics"), "cloudwatch reads the ALB's metrics (AWS): use prometheus on Google Cloud"
        elif not service.expose:
            yield (*at, "metrics"), "cloudwatch reads the endpoint's target groups: the service must be exposed"


def _backend_problems(
    platform: Platform, service: InferenceService, backend: Backend, pool: NodePool | None, at: tuple[str | int, ...]
) -> Iterator[Issue]:
    if pool is None or pool.purpose is not Purpose.inference or pool.accelerator is None:
        yield (*at, "node_pool"), f"{backend.node_pool!r} is not an accelerator inference pool"
    elif platform.cloud is Cloud.gcp:
        declared = "accelerators_per_replica" in (service if service.backends is None else backend).model_fields_set
        yield from _gke_inference_pool(pool, backend.accelerators_per_replica, declared, at)
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


def _tpu_shape(pool: NodePool) -> gcp_catalog.TpuShape | None:
    return gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology) if pool.tpu_topology else None


def _gke_inference_pool(
    pool: NodePool, per_replica: int, declared: bool, path: tuple[str | int, ...]
) -> Iterator[Issue]:
    """A replica is one pod on one VM: never on a multi-host slice, and on a TPU VM it takes all its chips."""
    machine = gcp_catalog.machine_type(pool.instance_type)
    if machine is None:
        return  # the GCP checks name the machine type
    shape = _tpu_shape(pool)
    if machine.kind == "tpu" and shape is not None:
        if shape.multi_host:
            yield ((*path, "node_pool"), f"{pool.name} is a multi-host {pool.tpu_topology} slice of {shape.vms} VMs; "
                   "an inference replica runs on one VM: serve from a single-host TPU pool")
        elif declared and per_replica != shape.tpu_resource_per_vm:
            yield ((*path, "accelerators_per_replica"), f"a pod on {pool.instance_type} takes the VM's "
                   f"{shape.tpu_resource_per_vm} TPU chips, not {per_replica}")
    elif machine.kind == "gpu" and per_replica > machine.accelerator_count:
        yield ((*path, "accelerators_per_replica"),
               f"{pool.instance_type} has {machine.accelerator_count} GPUs per node, not {per_replica}")


def _template_nodes(platform: Platform, pool: NodePool, nodes: int, path: tuple[str | int, ...]) -> Iterator[Issue]:
    shape = _tpu_shape(pool) if platform.cloud is Cloud.gcp else None
    if shape is not None and shape.multi_host:
        # `scaling` counts slices here: a job takes whole slices, each of `shape.vms` VMs.
        if nodes % shape.vms or nodes > pool.scaling.max * shape.vms:
            yield (path, f"a {pool.tpu_topology} slice is {shape.vms} VMs and the pool has {pool.scaling.max} "
                   f"slices: nodes must be a multiple of {shape.vms} up to {pool.scaling.max * shape.vms}, "
                   f"not {nodes}")
    elif nodes > pool.scaling.max:
        yield path, f"the pool scales to {pool.scaling.max} nodes, not {nodes}"


def _plugin_versions(platform: Platform) -> Iterator[Issue]:
    """Each vendor's plugins run once per cluster: every pool of a vendor must pin the same version."""
    chosen: dict[str, tuple[str, str]] = {}
    for index, pool in enumerate(platform.node_pools):
        profile = platform.pool_profile(pool)
        if pool.accelerator is None or profile is None:
            continue
        if platform.cloud is Cloud.aws and node_facts(pool.accelerator) is None:
            continue
        fields = list(vendor_plugin_fields(platform.cloud, vendor_of(pool.accelerator)))
        if pool.efa and platform.cloud is Cloud.aws:
            fields.append(EFA_PLUGIN_FIELD)
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
