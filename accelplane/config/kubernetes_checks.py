"""Cross-field checks of the `kubernetes` section: references, versions present, sane bounds."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.accelerator_vendors import node_facts, vendor_of
from accelplane.config.model import Platform, Purpose, WorkloadKind

Issue = tuple[tuple[str | int, ...], str]

# Chart versions the cluster-wide add-ons need, read from `kubernetes.addons_profile`.
ADDON_FIELDS = ("aws_load_balancer_controller", "kueue", "jobset", "kube_prometheus_stack")
# Chart versions (and images of node agents the program runs itself) each accelerator vendor's pools
# need from their own profile. The Neuron chart deploys no exporter: without neuron-monitor the
# Neuron PodMonitor and alerts would watch nothing, so its image is required like a chart version.
VENDOR_PLUGIN_FIELDS = {
    "nvidia": ("nvidia_device_plugin", "dcgm_exporter"),
    "aws": ("neuron_helm_chart", "neuron_monitor_image"),
}
EFA_PLUGIN_FIELD = "efa_device_plugin"


def kubernetes_problems(platform: Platform) -> Iterator[Issue]:
    layer = platform.kubernetes
    if layer is None:
        return
    base: tuple[str | int, ...] = ("kubernetes",)
    addons = platform.software_profiles.get(layer.addons_profile)
    if addons is None:
        yield (*base, "addons_profile"), f"no software profile named {layer.addons_profile!r}"
    else:
        for field in ADDON_FIELDS:
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
        pool = pools.get(service.node_pool)
        if pool is None or pool.purpose is not Purpose.inference or pool.accelerator is None:
            yield (*path, "node_pool"), f"{service.node_pool!r} is not an accelerator inference pool"
        workload = workloads.get(service.workload)
        if workload is None or workload.kind is not WorkloadKind.inference:
            yield (*path, "workload"), f"{service.workload!r} is not a declared inference workload"
        scaling = service.autoscaling
        if scaling.min_replicas > scaling.max_replicas:
            yield (*path, "autoscaling"), "expected min_replicas <= max_replicas"
        endpoint = platform.inference_endpoint
        if service.expose and endpoint is None:
            yield (*path, "expose"), "no inference_endpoint is declared to expose the service through"
        elif service.expose and endpoint is not None and service.port != endpoint.target_port:
            yield (*path, "port"), f"expected the endpoint's target_port {endpoint.target_port}, got {service.port}"
    for index, template in enumerate(layer.training_templates):
        path = (*base, "training_templates", index)
        pool = pools.get(template.node_pool)
        if pool is None or pool.purpose is not Purpose.training or pool.accelerator is None:
            yield (*path, "node_pool"), f"{template.node_pool!r} is not an accelerator training pool"
        elif template.nodes is not None and template.nodes > pool.scaling.max:
            yield (*path, "nodes"), f"the pool scales to {pool.scaling.max} nodes, not {template.nodes}"
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


def _plugin_versions(platform: Platform) -> Iterator[Issue]:
    """Each vendor's plugins run once per cluster: every pool of a vendor must pin the same version."""
    chosen: dict[str, tuple[str, str]] = {}
    for index, pool in enumerate(platform.node_pools):
        profile = platform.pool_profile(pool)
        if pool.accelerator is None or profile is None or node_facts(pool.accelerator) is None:
            continue
        fields = list(VENDOR_PLUGIN_FIELDS.get(vendor_of(pool.accelerator), ()))
        if pool.efa:
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
