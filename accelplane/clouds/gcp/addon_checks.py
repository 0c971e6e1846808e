"""The Kubernetes layer on GKE: the charts it needs pinned, and what only Google Cloud's facts can judge.

GKE runs its own GPU and TPU device plugins and its own Gateway controller: only Kueue, JobSet and
the Prometheus stack are pinned. A TPU slice's shape decides how inference replicas and training
jobs fit on it: a replica is one pod on one VM (never a multi-host slice; on a TPU VM it takes all
the VM's chips), and a job takes whole slices.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.clouds.gcp.declaration import GcpNodePool, GcpPlatform, gcp_pool
from accelplane.config.kubernetes_section_checks import launcher_problems, sized_training_templates
from accelplane.declaration import Backend, InferenceService, NodePool, Purpose

# GKE's Gateway controller exposes the inference services: no controller chart to pin.
ADDON_FIELDS = ("kueue", "jobset", "kube_prometheus_stack")


def gke_problems(platform: GcpPlatform) -> Iterator[Issue]:
    layer = platform.kubernetes
    if layer is None:
        return
    pools = {pool.name: pool for pool in platform.node_pools}
    for index, service in enumerate(layer.inference_services):
        path = ("kubernetes", "inference_services", index)
        for position, backend in enumerate(service.serving_backends):
            pool = pools.get(backend.node_pool)
            if pool is not None and pool.purpose is Purpose.inference and pool.accelerator is not None:
                at = path if service.backends is None else (*path, "backends", position)
                yield from _inference_pool(service, backend, pool, at)
    for sized in sized_training_templates(platform, _pool_nodes):
        if sized.template.nodes is not None:
            at = ("kubernetes", "training_templates", sized.index, "nodes")
            yield from _template_nodes(sized.pool, sized.nodes, at)
        yield from launcher_problems(sized)


def _pool_nodes(pool: NodePool) -> int:
    pool = gcp_pool(pool)
    """The pool's maximum in VMs: `scaling` counts slices on a multi-host TPU pool."""
    shape = _tpu_shape(pool)
    return pool.scaling.max * shape.vms if shape is not None and shape.multi_host else pool.scaling.max


def _tpu_shape(pool: GcpNodePool) -> gcp_catalog.TpuShape | None:
    return gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology) if pool.tpu_topology else None


def _inference_pool(
    service: InferenceService, backend: Backend, pool: GcpNodePool, path: tuple[str | int, ...]
) -> Iterator[Issue]:
    """A replica is one pod on one VM: never on a multi-host slice, and on a TPU VM it takes all its chips."""
    machine = gcp_catalog.machine_type(pool.instance_type)
    if machine is None:
        return  # the GCP checks name the machine type
    per_replica = backend.accelerators_per_replica
    declared = "accelerators_per_replica" in (service if service.backends is None else backend).model_fields_set
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


def _template_nodes(pool: NodePool, nodes: int, path: tuple[str | int, ...]) -> Iterator[Issue]:
    pool = gcp_pool(pool)
    shape = _tpu_shape(pool)
    if shape is not None and shape.multi_host:
        # `scaling` counts slices here: a job takes whole slices, each of `shape.vms` VMs.
        if nodes % shape.vms or nodes > pool.scaling.max * shape.vms:
            yield (path, f"a {pool.tpu_topology} slice is {shape.vms} VMs and the pool has {pool.scaling.max} "
                   f"slices: nodes must be a multiple of {shape.vms} up to {pool.scaling.max * shape.vms}, "
                   f"not {nodes}")
    elif nodes > pool.scaling.max:
        yield path, f"the pool scales to {pool.scaling.max} nodes, not {nodes}"
