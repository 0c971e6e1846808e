"""Compose the Kubernetes layer from the declaration and the cloud's facts, split by concern.

The same on every cloud: priority classes, namespaces (quotas, limits, default-deny policies),
add-ons (Kueue, JobSet, the Prometheus stack), monitoring, inference services, training templates
and queues. What differs comes from `ClusterFacts` (one per cloud, `clouds/<cloud>/k8s/cluster_facts.py`):
the provider, each pool's resource, selector and taints, the load balancer's sources, workload
identity, the checkpoint scheme, what exposes inference, and which add-on and device-plugin charts
the cloud needs (EKS runs the vendors' plugins; GKE runs its own).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import pulumi

from accelplane.accelerator_vendors import vendor_of
from accelplane.cost.idle_policy import accelerator_family as family
from accelplane.cost.idle_policy import idle_policy
from accelplane.declaration import BucketRole, KubernetesLayer, NodePool, Platform, Purpose, WorkloadKind
from accelplane.declaration.resilience import effective_health_check
from accelplane.k8s.accelerator_enablement import AcceleratorEnablement, AcceleratorEnablementArgs, VendorPools
from accelplane.k8s.batch_addons import BatchAddons, BatchAddonsArgs
from accelplane.k8s.cluster_facts import ClusterFacts, Exposure, PoolScheduling
from accelplane.k8s.inference_service import BackendPlacement, InferenceService, InferenceServiceArgs
from accelplane.k8s.mirror import air_gapped, current_image
from accelplane.k8s.monitoring import AcceleratorMonitoring, AcceleratorMonitoringArgs, IdlePool
from accelplane.k8s.neuron_monitor import NeuronMonitor, NeuronMonitorArgs
from accelplane.k8s.priority_classes import PriorityClasses
from accelplane.k8s.queues import AcceleratorQueues, AcceleratorQueuesArgs, Flavor, local_queue_name
from accelplane.k8s.service_props import service_props
from accelplane.k8s.training_template import TrainingJobTemplate, TrainingJobTemplateArgs
from accelplane.k8s.workload_namespace import WorkloadNamespace, WorkloadNamespaceArgs
from accelplane.matrix.schema import Vendor


@dataclass(frozen=True)
class _Layer:
    """What every part of the layer shares."""

    platform: Platform
    spec: KubernetesLayer
    facts: ClusterFacts
    provider: pulumi.ProviderResource
    opts: pulumi.ResourceOptions
    scheduling: Mapping[str, PoolScheduling]  # accelerator pools the layer schedules onto, by name

    @property
    def name(self) -> str:
        return self.platform.name

    def pool(self, name: str) -> NodePool:
        return next(pool for pool in self.platform.node_pools if pool.name == name)

    @property
    def accelerator_pools(self) -> list[NodePool]:
        return [pool for pool in self.platform.node_pools if pool.name in self.scheduling]


def build_kubernetes(platform: Platform, facts: ClusterFacts) -> None:
    """The Kubernetes layer through its own cluster provider (and the cloud's provider for the few cloud
    resources it owns, see `ClusterFacts.providers`)."""
    spec = platform.kubernetes
    if spec is None:
        return
    with air_gapped(platform.air_gap):  # charts and images from the mirror (accelplane.k8s.mirror)
        _build(platform, spec, facts)


def _build(platform: Platform, spec: KubernetesLayer, facts: ClusterFacts) -> None:
    provider = facts.provider(f"{platform.name}-k8s")
    scheduling = {pool.name: s for pool in platform.node_pools if (s := facts.scheduling(pool)) is not None}
    ctx = _Layer(
        platform=platform,
        spec=spec,
        facts=facts,
        provider=provider,
        opts=pulumi.ResourceOptions(providers=dict(facts.providers(provider))),
        scheduling=scheduling,
    )
    versions = {field: getattr(platform.software_profiles[spec.addons_profile], field)
                for field in facts.support.addon_fields()}

    PriorityClasses(f"{ctx.name}-priorities", opts=ctx.opts)
    namespaces = _namespaces(ctx)
    vendors = _vendor_pools(ctx)
    enablement = _device_enablement(ctx, vendors)
    exposure = facts.exposure(platform, ctx.opts)
    addons = BatchAddons(
        f"{ctx.name}-batch", BatchAddonsArgs(kueue=versions["kueue"], jobset=versions["jobset"]), opts=ctx.opts
    )
    _monitoring(ctx, versions["kube_prometheus_stack"], vendors)
    _inference(ctx, namespaces, exposure, enablement)
    _training(ctx, namespaces)
    AcceleratorQueues(
        f"{ctx.name}-queues",
        AcceleratorQueuesArgs(
            flavors=[
                Flavor(pool=name, resource=s.resource, node_labels=s.selector, taints=s.taints)
                for name, s in ctx.scheduling.items()
            ],
            teams=spec.teams,
            depends_on=[addons.kueue, *namespaces.values()],
        ),
        opts=ctx.opts,
    )


# ---- namespaces -----------------------------------------------------------------------------------


def _namespace_quotas(ctx: _Layer) -> dict[str, dict[str, int]]:
    """Accelerators each namespace may request: its teams' quotas, or its pools' full capacity."""
    quotas: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    team_namespaces = set()
    for team in ctx.spec.teams:
        team_namespaces.add(team.namespace)
        for pool_name, count in team.quotas.items():
            quotas[team.namespace][ctx.scheduling[pool_name].resource] += count + team.borrowing_limit
    for workload in ctx.platform.workloads:
        if workload.namespace in team_namespaces:
            continue
        purpose = Purpose.training if workload.kind is WorkloadKind.training else Purpose.inference
        for pool in ctx.accelerator_pools:
            if pool.purpose is purpose:
                scheduling = ctx.scheduling[pool.name]
                quotas[workload.namespace][scheduling.resource] += scheduling.capacity
    return {ns: dict(q) for ns, q in quotas.items()}


def _namespaces(ctx: _Layer) -> dict[str, WorkloadNamespace]:
    """Every workload's and team's namespace, with quotas and default-deny traffic."""
    platform = ctx.platform
    workloads = {w.name: w for w in platform.workloads}
    quotas = _namespace_quotas(ctx)
    training_ns = {w.namespace for w in platform.workloads if w.kind is WorkloadKind.training}
    training_ns |= {team.namespace for team in ctx.spec.teams}
    service_ports: dict[str, list[int]] = defaultdict(list)
    for service in ctx.spec.inference_services:
        service_ports[workloads[service.workload].namespace].append(service.port)
    lb_sources = ctx.facts.load_balancer_sources()
    namespaces = {}
    for ns in sorted({w.namespace for w in platform.workloads} | {t.namespace for t in ctx.spec.teams}):
        namespaces[ns] = WorkloadNamespace(
            f"{ctx.name}-ns-{ns}",
            WorkloadNamespaceArgs(
                namespace=ns,
                training=ns in training_ns,
                inference_ports=service_ports.get(ns, []),
                load_balancer_cidrs=lb_sources,
                accelerator_quota=quotas.get(ns, {}),
                labels={"app.kubernetes.io/part-of": "accelplane"},
            ),
            opts=ctx.opts,
        )
    return namespaces


# ---- devices and monitoring -----------------------------------------------------------------------


def _vendor_pools(ctx: _Layer) -> list[VendorPools]:
    """The vendors whose device plugins the layer installs, with their pools' versions: EKS only (GKE runs
    its own plugins, so no vendor has plugin fields there)."""
    by_vendor: dict[str, list[NodePool]] = defaultdict(list)
    for pool in ctx.accelerator_pools:
        vendor = vendor_of(pool.accelerator or "")
        if ctx.facts.support.vendor_plugin_fields(vendor):
            by_vendor[vendor].append(pool)
    vendors = []
    for vendor, vendor_pools in sorted(by_vendor.items()):
        profile = ctx.platform.pool_profile(vendor_pools[0])
        assert profile is not None
        vendors.append(
            VendorPools(
                vendor=vendor,
                accelerators=sorted({p.accelerator or "" for p in vendor_pools}),
                tolerations=_unique([t for p in vendor_pools for t in ctx.scheduling[p.name].tolerations]),
                versions={f: getattr(profile, f) for f in ctx.facts.support.vendor_plugin_fields(vendor)},
            )
        )
    return vendors


def _device_enablement(ctx: _Layer, vendors: list[VendorPools]) -> AcceleratorEnablement | None:
    efa_pools = [p for p in ctx.accelerator_pools if p.fabric_plugin_field()]
    if not vendors and not efa_pools:
        return None  # GKE: its own GPU and TPU device plugins
    efa_field = efa_pools[0].fabric_plugin_field() if efa_pools else None
    efa_version = getattr(ctx.platform.pool_profile(efa_pools[0]), efa_field) if efa_field else None
    return AcceleratorEnablement(
        f"{ctx.name}-accelerators",
        AcceleratorEnablementArgs(
            vendors=vendors,
            efa_version=efa_version,
            efa_tolerations=_unique([t for p in efa_pools for t in ctx.scheduling[p.name].tolerations]),
        ),
        opts=ctx.opts,
    )


def _monitoring(ctx: _Layer, version: str, vendors: list[VendorPools]) -> None:
    workloads = {w.name: w for w in ctx.platform.workloads}
    tpu = any(s.vms_per_slice is not None for s in ctx.scheduling.values())  # only TPU pools come in slices
    AcceleratorMonitoring(
        f"{ctx.name}-monitoring",
        AcceleratorMonitoringArgs(
            version=version,
            neuron=any(v.vendor == Vendor.NEURON for v in vendors),
            tpu=tpu,
            device_exporter_alerts=ctx.facts.runs_device_exporters,
            inference_namespaces=sorted({workloads[s.workload].namespace for s in ctx.spec.inference_services}),
            idle_pools=[IdlePool(pool.name, kind, policy.below_percent, policy.for_hours)
                        for pool in ctx.platform.node_pools
                        if (kind := family(pool.accelerator)) is not None
                        and (policy := idle_policy(ctx.platform, pool)) is not None],
        ),
        opts=ctx.opts,
    )
    # The Neuron chart ships no exporter: neuron-monitor runs on the Neuron pools for the PodMonitor above.
    neuron = next((v for v in vendors if v.vendor == Vendor.NEURON), None)
    if neuron is not None:
        NeuronMonitor(
            f"{ctx.name}-neuron-monitor",
            NeuronMonitorArgs(
                image=current_image(neuron.versions["neuron_monitor_image"]),
                accelerators=neuron.accelerators,
                tolerations=neuron.tolerations,
            ),
            opts=ctx.opts,
        )


# ---- workloads ------------------------------------------------------------------------------------


def _inference(
    ctx: _Layer,
    namespaces: Mapping[str, WorkloadNamespace],
    exposure: Exposure,
    enablement: AcceleratorEnablement | None,
) -> None:
    platform = ctx.platform
    workloads = {w.name: w for w in platform.workloads}
    endpoint = platform.inference_endpoint
    for service in ctx.spec.inference_services:
        workload = workloads[service.workload]
        placements = []
        for backend in service.serving_backends:
            scheduling = ctx.scheduling[backend.node_pool]
            # A TPU VM's chips go to one pod together; elsewhere a replica takes what it declares.
            accelerators = scheduling.per_node if scheduling.whole_node else backend.accelerators_per_replica
            placements.append(
                BackendPlacement(
                    backend=backend,
                    accelerator_resource=scheduling.resource,
                    accelerators=accelerators,
                    pool_labels=scheduling.selector,
                    tolerations=scheduling.tolerations,
                )
            )
        InferenceService(
            f"{ctx.name}-svc-{service.name}",
            InferenceServiceArgs(
                spec=service,
                props=service_props(platform, service),
                namespace=workload.namespace,
                service_account=workload.service_account_name,
                account_annotations=ctx.facts.service_account_annotations(workload),
                backends=placements,
                health_path=effective_health_check(endpoint.health_check, service.health_check).path
                if endpoint else (service.health_check.path if service.health_check else "/healthz"),
                run_as=workload.run_as,
                exposure=exposure.backend,
                depends_on=[
                    namespaces[workload.namespace],
                    *exposure.depends_on,
                    *(enablement.releases if enablement else []),
                ],
            ),
            opts=ctx.opts,
        )


def _training(ctx: _Layer, namespaces: Mapping[str, WorkloadNamespace]) -> None:
    workloads = {w.name: w for w in ctx.platform.workloads}
    queues_by_namespace = {team.namespace: local_queue_name(team) for team in ctx.spec.teams}
    for template in ctx.spec.training_templates:
        pool = ctx.pool(template.node_pool)
        scheduling = ctx.scheduling[pool.name]
        workload = workloads[template.workload]
        grant = next(g for g in workload.buckets if g.role is BucketRole.checkpoints)
        nodes = template.nodes or scheduling.max_nodes
        per_slice = scheduling.vms_per_slice
        TrainingJobTemplate(
            f"{ctx.name}-train-{pool.name}",
            TrainingJobTemplateArgs(
                spec=template,
                job_name=pool.name,
                namespace=workload.namespace,
                service_account=workload.service_account_name,
                queue=queues_by_namespace.get(workload.namespace),
                accelerator_resource=scheduling.resource,
                accelerators_per_node=scheduling.per_node,
                fabric=scheduling.fabric,
                nodes=per_slice or nodes,
                pool_selector=scheduling.selector,
                tolerations=scheduling.taints,
                checkpoint_uri=ctx.facts.checkpoint_uri(grant.prefix),
                slices=nodes // per_slice if per_slice else None,
                exclusive_topology=scheduling.exclusive_topology,
            ),
            opts=pulumi.ResourceOptions(
                providers={"kubernetes": ctx.provider}, depends_on=[namespaces[workload.namespace]]
            ),
        )


def _unique[T](items: list[T]) -> list[T]:
    out: list[T] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
