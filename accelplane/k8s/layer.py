"""Compose the Kubernetes layer from the declaration and the cloud layer's outputs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

import pulumi

from accelplane.accelerator_vendors import VendorNodeFacts, node_facts, vendor_of
from accelplane.config import aws_catalog
from accelplane.config.kubernetes_checks import ADDON_FIELDS, EFA_PLUGIN_FIELD, VENDOR_PLUGIN_FIELDS
from accelplane.config.model import BucketRole, NodePool, Platform, Purpose, WorkloadKind
from accelplane.k8s.accelerator_enablement import AcceleratorEnablement, AcceleratorEnablementArgs, VendorPools
from accelplane.k8s.batch_addons import BatchAddons, BatchAddonsArgs
from accelplane.k8s.inference_service import InferenceService, InferenceServiceArgs
from accelplane.k8s.load_balancer_controller import LoadBalancerController, LoadBalancerControllerArgs
from accelplane.k8s.monitoring import AcceleratorMonitoring, AcceleratorMonitoringArgs
from accelplane.k8s.neuron_monitor import NeuronMonitor, NeuronMonitorArgs
from accelplane.k8s.priority_classes import PriorityClasses
from accelplane.k8s.provider import cluster_provider
from accelplane.k8s.queues import AcceleratorQueues, AcceleratorQueuesArgs, Flavor, local_queue_name
from accelplane.k8s.scheduling import pool_selector, pool_taints, pool_tolerations
from accelplane.k8s.training_template import TrainingJobTemplate, TrainingJobTemplateArgs
from accelplane.k8s.workload_namespace import WorkloadNamespace, WorkloadNamespaceArgs

T = TypeVar("T")


@dataclass(frozen=True)
class CloudOutputs:
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    certificate_authority: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_issuer_host: pulumi.Output[str]
    vpc_id: pulumi.Output[str]
    target_group_arn: pulumi.Output[str] | None
    workload_role_arns: Mapping[str, pulumi.Output[str]]
    bucket_names: Mapping[BucketRole, pulumi.Output[str]]


def _resource(pool: NodePool) -> str:
    facts = node_facts(pool.accelerator)
    assert facts is not None and facts.resource, pool.name  # accelerator pools only
    return facts.resource


def _per_node(pool: NodePool) -> int:
    facts = aws_catalog.instance_facts(pool.instance_type)
    return facts.accelerator_count if facts else 0


def _namespace_quotas(platform: Platform) -> dict[str, dict[str, int]]:
    """Accelerators each namespace may request: its teams' quotas, or its pools' full capacity."""
    layer = platform.kubernetes
    assert layer is not None
    pools = {pool.name: pool for pool in platform.node_pools}
    quotas: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    team_namespaces = set()
    for team in layer.teams:
        team_namespaces.add(team.namespace)
        for pool_name, count in team.quotas.items():
            quotas[team.namespace][_resource(pools[pool_name])] += count + team.borrowing_limit
    for workload in platform.workloads:
        if workload.namespace in team_namespaces:
            continue
        purpose = Purpose.training if workload.kind is WorkloadKind.training else Purpose.inference
        for pool in platform.node_pools:
            if pool.accelerator and pool.purpose is purpose:
                quotas[workload.namespace][_resource(pool)] += pool.scaling.max * _per_node(pool)
    return {ns: dict(q) for ns, q in quotas.items()}


def build_kubernetes(platform: Platform, cloud: CloudOutputs, aws_provider: pulumi.ProviderResource) -> None:
    """The Kubernetes layer through its own cluster provider; the AWS resources it needs (the load
    balancer controller's role) through `aws_provider`, the program's provider for the declared region."""
    layer = platform.kubernetes
    if layer is None:
        return
    name = platform.name
    addons = platform.software_profiles[layer.addons_profile]
    versions = {field: getattr(addons, field) for field in ADDON_FIELDS}
    provider = cluster_provider(
        f"{name}-k8s", cloud.cluster_name, cloud.endpoint, cloud.certificate_authority, platform.region
    )
    opts = pulumi.ResourceOptions(providers={"kubernetes": provider, "aws": aws_provider})
    pools = {pool.name: pool for pool in platform.node_pools}
    workloads = {w.name: w for w in platform.workloads}
    accelerator_pools = [p for p in platform.node_pools if p.accelerator and node_facts(p.accelerator)]

    PriorityClasses(f"{name}-priorities", opts=opts)

    # Namespaces: every workload's and team's, with quotas and default-deny traffic.
    if platform.network.new_vpc is not None:
        lb_cidrs = list(platform.network.new_vpc.public_subnets)
    else:
        assert platform.network.existing_vpc is not None
        lb_cidrs = [platform.network.existing_vpc.cidr]
    quotas = _namespace_quotas(platform)
    training_ns = {w.namespace for w in platform.workloads if w.kind is WorkloadKind.training}
    training_ns |= {team.namespace for team in layer.teams}
    service_ports: dict[str, list[int]] = defaultdict(list)
    for service in layer.inference_services:
        service_ports[workloads[service.workload].namespace].append(service.port)
    namespaces = {}
    for ns in sorted({w.namespace for w in platform.workloads} | {t.namespace for t in layer.teams}):
        namespaces[ns] = WorkloadNamespace(
            f"{name}-ns-{ns}",
            WorkloadNamespaceArgs(
                namespace=ns,
                training=ns in training_ns,
                inference_ports=service_ports.get(ns, []),
                load_balancer_cidrs=lb_cidrs,
                accelerator_quota=quotas.get(ns, {}),
                labels={"app.kubernetes.io/part-of": "accelplane"},
            ),
            opts=opts,
        )

    # Device plugins and metrics per vendor present, versions from the pools' profiles.
    by_vendor: dict[str, list[NodePool]] = defaultdict(list)
    for pool in accelerator_pools:
        by_vendor[vendor_of(pool.accelerator or "")].append(pool)
    vendors = []
    for vendor, vendor_pools in sorted(by_vendor.items()):
        profile = platform.pool_profile(vendor_pools[0])
        assert profile is not None
        facts = node_facts(vendor_pools[0].accelerator)
        assert facts is not None
        vendors.append(
            VendorPools(
                vendor=vendor,
                accelerators=sorted({p.accelerator or "" for p in vendor_pools}),
                tolerations=_unique([t for p in vendor_pools for t in pool_tolerations(p, facts)]),
                versions={f: getattr(profile, f) for f in VENDOR_PLUGIN_FIELDS.get(vendor, ())},
            )
        )
    efa_pools = [p for p in accelerator_pools if p.efa]
    efa_version = getattr(platform.pool_profile(efa_pools[0]), EFA_PLUGIN_FIELD) if efa_pools else None
    enablement = AcceleratorEnablement(
        f"{name}-accelerators",
        AcceleratorEnablementArgs(
            vendors=vendors,
            efa_version=efa_version,
            efa_tolerations=_unique([t for p in efa_pools for t in pool_tolerations(p, _facts(p))]),
        ),
        opts=opts,
    )

    controller = LoadBalancerController(
        f"{name}-lbc",
        LoadBalancerControllerArgs(
            version=versions["aws_load_balancer_controller"],
            cluster_name=cloud.cluster_name,
            region=platform.region,
            vpc_id=cloud.vpc_id,
            target_group_arn=cloud.target_group_arn,
            oidc_provider_arn=cloud.oidc_provider_arn,
            oidc_issuer_host=cloud.oidc_issuer_host,
            tags=platform.resource_tags,
        ),
        opts=opts,
    )
    addons_release = BatchAddons(
        f"{name}-batch", BatchAddonsArgs(kueue=versions["kueue"], jobset=versions["jobset"]), opts=opts
    )
    AcceleratorMonitoring(
        f"{name}-monitoring",
        AcceleratorMonitoringArgs(version=versions["kube_prometheus_stack"], neuron="aws" in by_vendor),
        opts=opts,
    )
    # The Neuron chart ships no exporter: neuron-monitor runs on the Neuron pools for the PodMonitor above.
    neuron = next((v for v in vendors if v.vendor == "aws"), None)
    if neuron is not None:
        NeuronMonitor(
            f"{name}-neuron-monitor",
            NeuronMonitorArgs(
                image=neuron.versions["neuron_monitor_image"],
                accelerators=neuron.accelerators,
                tolerations=neuron.tolerations,
            ),
            opts=opts,
        )

    for service in layer.inference_services:
        pool = pools[service.node_pool]
        workload = workloads[service.workload]
        InferenceService(
            f"{name}-svc-{service.name}",
            InferenceServiceArgs(
                spec=service,
                namespace=workload.namespace,
                service_account=workload.service_account_name,
                role_arn=cloud.workload_role_arns[workload.name],
                accelerator_resource=_resource(pool),
                pool_labels=pool_selector(pool),
                tolerations=pool_tolerations(pool, _facts(pool)),
                health_path=platform.inference_endpoint.health_check.path
                if platform.inference_endpoint
                else "/healthz",
                target_group_arn=cloud.target_group_arn,
                depends_on=[namespaces[workload.namespace], controller, *enablement.releases],
            ),
            opts=opts,
        )

    queues_by_namespace = {team.namespace: local_queue_name(team) for team in layer.teams}
    for template in layer.training_templates:
        pool = pools[template.node_pool]
        workload = workloads[template.workload]
        grant = next(g for g in workload.buckets if g.role is BucketRole.checkpoints)
        instance = aws_catalog.instance_facts(pool.instance_type)
        TrainingJobTemplate(
            f"{name}-train-{pool.name}",
            TrainingJobTemplateArgs(
                spec=template,
                job_name=pool.name,
                namespace=workload.namespace,
                service_account=workload.service_account_name,
                queue=queues_by_namespace.get(workload.namespace),
                accelerator_resource=_resource(pool),
                accelerators_per_node=_per_node(pool),
                efa_interfaces=(instance.max_efa_interfaces if instance and pool.efa else 0),
                nodes=template.nodes or pool.scaling.max,
                pool_selector=pool_selector(pool),
                tolerations=pool_taints(pool, _facts(pool)),
                checkpoint_uri=pulumi.Output.concat(
                    "s3://", cloud.bucket_names[BucketRole.checkpoints], "/", grant.prefix
                ),
            ),
            opts=pulumi.ResourceOptions(
                providers={"kubernetes": provider}, depends_on=[namespaces[workload.namespace]]
            ),
        )

    AcceleratorQueues(
        f"{name}-queues",
        AcceleratorQueuesArgs(
            flavors=[
                Flavor(
                    pool=p.name, resource=_resource(p), node_labels=pool_selector(p), taints=pool_taints(p, _facts(p))
                )
                for p in accelerator_pools
            ],
            teams=layer.teams,
            depends_on=[addons_release.kueue, *namespaces.values()],
        ),
        opts=opts,
    )


def _facts(pool: NodePool) -> VendorNodeFacts:
    facts = node_facts(pool.accelerator)
    assert facts is not None
    return facts


def _unique(items: list[T]) -> list[T]:
    out: list[T] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
