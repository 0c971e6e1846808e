"""The Google Cloud platform: GKE with TPU slices, GPU and CPU node pools, GCS, a Gateway endpoint's
address and policies, Secret Manager, Cloud KMS and per-workload IAM.

The only place GCP components are wired together, split by concern: identities and keys, network
and cluster, node pools (one GKE node pool per multi-host TPU slice), buckets, the endpoint,
secrets and workload access, then the Kubernetes layer. Every resource and lookup goes through
one provider for the declared project and region, never the ambient gcloud configuration.

The project's APIs (container, compute, cloudkms, secretmanager, storage, certificatemanager,
iam) are enabled once by whoever owns the project: enabling them needs `serviceusage` rights the
platform's deployer should not hold (README, "Google Cloud").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_gcp.secretmanager as secretmanager
from pulumi_gcp.billing import Budget as BillingBudget
from pulumi_gcp.provider import Provider

from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.clouds.gcp import future_reservation
from accelplane.clouds.gcp.budget import display_name as budget_display_name
from accelplane.clouds.gcp.components.audit_logs import AuditLogs, AuditLogsArgs
from accelplane.clouds.gcp.components.bucket import (
    BucketLifecycleRule,
    SecureBucket,
    SecureBucketArgs,
    StorageClassTransition,
)
from accelplane.clouds.gcp.components.cluster import GkeCluster, GkeClusterArgs
from accelplane.clouds.gcp.components.encryption_key import EncryptionKey, EncryptionKeyArgs
from accelplane.clouds.gcp.components.iap_access import IapAccess, IapAccessArgs
from accelplane.clouds.gcp.components.inference_endpoint import InferenceEndpoint, InferenceEndpointArgs
from accelplane.clouds.gcp.components.key_ring import KeyRing, KeyRingArgs
from accelplane.clouds.gcp.components.network import NetworkArgs, PlatformNetwork
from accelplane.clouds.gcp.components.node_pool import (
    AcceleratorNodePool,
    Autoscaling,
    GpuSpec,
    NodePoolArgs,
    NodeTaint,
)
from accelplane.clouds.gcp.components.node_service_account import NodeServiceAccount, NodeServiceAccountArgs
from accelplane.clouds.gcp.components.secret_store import SecretSpec, SecretStore, SecretStoreArgs
from accelplane.clouds.gcp.components.service_agents import ServiceAgents, ServiceAgentsArgs
from accelplane.clouds.gcp.components.workload_access import BucketGrant, WorkloadAccess, WorkloadAccessArgs
from accelplane.clouds.gcp.declaration import GcpNodePool, GcpPlatform, GcpSettings, GpuDriver
from accelplane.clouds.gcp.k8s.cluster_facts import GkeEndpoint, GkeFacts
from accelplane.config.pulumi_source import secret_values
from accelplane.declaration import BucketRole, CapacityType, Environment, InferenceService
from accelplane.k8s.layer import build_kubernetes
from accelplane.node_labels import pool_labels

_GPU_DRIVER = {GpuDriver.default: "DEFAULT", GpuDriver.latest: "LATEST", GpuDriver.disabled: "INSTALLATION_DISABLED"}
# TPU v6e VMs boot only from Hyperdisk (https://cloud.google.com/tpu/docs/v6e): every other pool
# keeps the balanced persistent disk.
_HYPERDISK_MACHINES = ("ct6e-",)


@dataclass(frozen=True)
class _Context:
    platform: GcpPlatform
    settings: GcpSettings
    provider: Provider
    labels: dict[str, str]
    protect: bool
    opts: pulumi.ResourceOptions

    @property
    def name(self) -> str:
        return self.platform.name

    @property
    def node_version(self) -> str | None:
        """The pinned node version; None on a release channel (GKE upgrades the nodes)."""
        return None if self.settings.release_channel else self.settings.gke_version


@dataclass(frozen=True)
class _Keys:
    gke: EncryptionKey
    data: EncryptionKey
    secrets: EncryptionKey


def build_gcp(platform: GcpPlatform) -> dict[str, Any]:
    """Declare every resource of a Google Cloud platform; return the stack outputs."""
    settings = platform.gcp
    assert settings is not None  # guaranteed by the GCP checks
    provider = Provider(f"{platform.name}-gcp", project=settings.project, region=platform.region)
    ctx = _Context(
        platform=platform,
        settings=settings,
        provider=provider,
        labels=platform.resource_labels,
        protect=platform.environment is Environment.prod,
        opts=pulumi.ResourceOptions(providers=[provider]),
    )
    agents = ServiceAgents(f"{ctx.name}-agents", ServiceAgentsArgs(project=settings.project), ctx.opts)
    node_account = NodeServiceAccount(
        f"{ctx.name}-nodes", NodeServiceAccountArgs(account_id=_account_id(f"{ctx.name}-nodes"),
                                                    project=settings.project), ctx.opts)
    keys = _keys(ctx, agents)
    cluster = _cluster(ctx, keys, node_account)
    node_pools = _node_pools(ctx, cluster, node_account)
    buckets = _buckets(ctx, keys)
    outputs: dict[str, Any] = {
        "clusterName": cluster.name,
        "clusterEndpoint": cluster.endpoint,
        "workloadPool": cluster.workload_pool,
        "nodePools": node_pools,
        "buckets": {role.value: bucket.bucket_name for role, bucket in buckets.items()},
    }
    spec = platform.inference_endpoint
    endpoint = None
    if spec is not None:
        endpoint = InferenceEndpoint(
            f"{ctx.name}-inference",
            InferenceEndpointArgs(allowed_cidrs=list(spec.allowed_cidrs), labels=ctx.labels,
                                  tls_profile=spec.ssl_profile.value, certificate=spec.certificate,
                                  certificate_map_name=f"{ctx.name}-inference",
                                  service_limits={s.name: s.rate_limit for s in _exposed(platform)
                                                  if s.rate_limit is not None}),
            ctx.opts,
        )
        outputs["inferenceAddress"] = endpoint.address
    principals, secret_ids = _secrets_and_access(ctx, keys, agents, buckets)
    outputs["workloadPrincipals"] = principals
    _budget(ctx, agents)
    if platform.audit is not None:
        AuditLogs(f"{ctx.name}-audit", AuditLogsArgs(project=settings.project, location=platform.region,
                                                    bucket_id=f"{ctx.name}-audit",
                                                    retention_days=platform.audit.retention_days), ctx.opts)
    _kubernetes(ctx, cluster, buckets, endpoint, _iap_client_secret(ctx, secret_ids))
    return outputs


def _iap_client_secret(ctx: _Context, secret_ids: dict[str, pulumi.Output[str]]) -> pulumi.Output[str] | None:
    """The IAP OAuth client's secret where the endpoint validates ID tokens (its callers granted access): the
    value `pulumi config set --secret` gave, else the latest version in Secret Manager, read at `pulumi up`."""
    spec = ctx.platform.inference_endpoint
    tokens = spec.client_auth.id_tokens if spec is not None and spec.client_auth is not None else None
    if tokens is None:
        return None
    IapAccess(f"{ctx.name}-iap", IapAccessArgs(project=ctx.settings.project, callers=tokens.callers), ctx.opts)
    given = secret_values(ctx.platform).get(tokens.oauth_client_secret)
    if given is not None:
        return given
    version = secretmanager.get_secret_version_access_output(secret=secret_ids[tokens.oauth_client_secret],
                                                             opts=pulumi.InvokeOutputOptions(provider=ctx.provider))
    return pulumi.Output.secret(version.secret_data)


def _exposed(platform: GcpPlatform) -> list[InferenceService]:
    return [s for s in (platform.kubernetes.inference_services if platform.kubernetes else []) if s.expose]


def _budget(ctx: _Context, agents: ServiceAgents) -> None:
    """A Cloud Billing budget on the billing account, over this project: alerts the account's billing
    admins at `warn_at` of actual spend and at 100 % of forecast spend. Its display name records the
    pool size `check` judges it at (AP-COST-001 reads it from the plan; budgets carry no labels)."""
    budget = ctx.platform.budget
    if budget is None or budget.billing_account is None:
        return
    BillingBudget(
        f"{ctx.name}-budget",
        billing_account=budget.billing_account,
        display_name=budget_display_name(ctx.name, budget.judged_at.value),
        amount={"specified_amount": {"currency_code": "USD", "units": str(round(budget.monthly_usd))}},
        budget_filter={
            "projects": [agents.project_number.apply(lambda number: f"projects/{number}")],
            "calendar_period": "MONTH",
        },
        threshold_rules=[
            {"threshold_percent": budget.warn_at, "spend_basis": "CURRENT_SPEND"},
            {"threshold_percent": 1.0, "spend_basis": "FORECASTED_SPEND"},
        ],
        opts=ctx.opts,
    )


def _kubernetes(
    ctx: _Context, cluster: GkeCluster, buckets: dict[BucketRole, SecureBucket], endpoint: InferenceEndpoint | None,
    iap_client_secret: pulumi.Output[str] | None,
) -> None:
    """The Kubernetes layer on the cluster; the Gateway serves the declared Certificate Manager certificate
    through the endpoint's certificate map (a PRIMARY entry with the certificate)."""
    build_kubernetes(
        ctx.platform,
        GkeFacts(
            platform=ctx.platform,
            cluster_name=cluster.name,
            endpoint=cluster.endpoint,
            certificate_authority=cluster.ca_certificate,
            bucket_names={role: bucket.bucket_name for role, bucket in buckets.items()},
            inference_endpoint=GkeEndpoint(
                address_name=endpoint.address_name,
                ssl_policy_name=endpoint.ssl_policy_name,
                security_policy_name=endpoint.security_policy_name,
                service_policy_names=endpoint.service_policy_names,
                certificate_map=endpoint.certificate_map_name,
                iap_client_secret=iap_client_secret,
            ) if endpoint is not None and endpoint.certificate_map_name is not None else None,
        ),
    )


def _account_id(name: str) -> str:
    # Service account ids: 6-30 characters, lower-case letters, digits and '-', not ending in '-'.
    return name[:30].rstrip("-")


def _keys(ctx: _Context, agents: ServiceAgents) -> _Keys:
    ring = KeyRing(f"{ctx.name}-keys",
                   KeyRingArgs(key_ring_name=ctx.name, location=ctx.platform.region, protect=ctx.protect), ctx.opts)

    def key(role: str, member: pulumi.Output[str]) -> EncryptionKey:
        return EncryptionKey(
            f"{ctx.name}-{role}",
            EncryptionKeyArgs(key_ring_id=ring.key_ring_id, key_name=role, encrypter_decrypter_members=[member],
                              labels=ctx.labels, protect=ctx.protect),
            ctx.opts,
        )

    return _Keys(gke=key("gke", agents.gke_member), data=key("data", agents.storage_member),
                 secrets=key("secrets", agents.secret_manager_member))


def _cluster(ctx: _Context, keys: _Keys, node_account: NodeServiceAccount) -> GkeCluster:
    """The network and the cluster in it (the node pools take the cluster; nothing else the network)."""
    platform = ctx.platform
    vpc = platform.network.vpc
    assert vpc is not None  # guaranteed by the GCP checks
    endpoint = platform.inference_endpoint
    network = PlatformNetwork(
        f"{ctx.name}-network",
        NetworkArgs(region=platform.region, node_cidr=vpc.node_cidr, pods_cidr=vpc.pods_cidr,
                    services_cidr=vpc.services_cidr,
                    load_balancer_target_ports=[endpoint.target_port] if endpoint else [],
                    node_service_account_email=node_account.email),
        ctx.opts,
    )
    cluster = GkeCluster(
        f"{ctx.name}-gke",
        GkeClusterArgs(
            cluster_name=ctx.name,
            project=ctx.settings.project,
            location=platform.region,
            kubernetes_version=ctx.settings.gke_version or platform.kubernetes_version,
            network_id=network.network_id,
            subnet_id=network.subnet_id,
            pods_range_name=network.pods_range_name,
            services_range_name=network.services_range_name,
            api_allowed_cidrs=list(platform.network.api_allowed_cidrs),
            secrets_key_id=keys.gke.key_id,
            node_service_account_email=node_account.email,
            labels=ctx.labels,
            deletion_protection=ctx.protect,
            release_channel=ctx.settings.release_channel.value if ctx.settings.release_channel else None,
            key_grants=[keys.gke.grant],
            # GKE's managed DCGM exporter, not the dcgm-exporter chart: GKE installs the driver in its own
            # path and keeps the exporter matched to the node version, with no privileged DaemonSet of ours
            # (https://cloud.google.com/kubernetes-engine/docs/how-to/dcgm-metrics). It needs the driver
            # GKE installs, so a pool with gpu_driver: disabled brings its own exporter.
            gpu_metrics=any(pool.accelerator and pool.accelerator.startswith("nvidia-")
                            and pool.gpu_driver is not GpuDriver.disabled for pool in platform.node_pools),
        ),
        ctx.opts,
    )
    return cluster


def _node_pools(ctx: _Context, cluster: GkeCluster, node_account: NodeServiceAccount) -> dict[str, list[Any]]:
    """GKE node pool names per declared pool: one per pool, or one per slice of a multi-host TPU pool."""
    out: dict[str, list[Any]] = {}
    for pool in ctx.platform.node_pools:
        machine = gcp_catalog.machine_type(pool.instance_type)
        assert machine is not None  # guaranteed by the GCP checks
        shape = gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology) if pool.tpu_topology else None
        profile = ctx.platform.pool_profile(pool)
        request = pool.capacity.future_reservation
        common = {
            "cluster_id": cluster.cluster_id,
            "location": ctx.platform.region,
            "node_locations": [request.zone] if request is not None else list(pool.zones or ctx.settings.zones),
            "machine_type": pool.instance_type,
            "node_service_account_email": node_account.email,
            "kubernetes_version": ctx.node_version,
            "disk_size_gb": pool.disk_gib,
            "disk_type": "hyperdisk-balanced" if pool.instance_type.startswith(_HYPERDISK_MACHINES) else "pd-balanced",
            "node_labels": pool_labels(pool, profile, pool.software_profile),
            "taints": [NodeTaint(t.key, t.value, t.effect.value) for t in pool.taints or []],
            "labels": {**ctx.labels, "accelplane-pool": pool.name},
            "spot": pool.capacity.type is CapacityType.spot,
            "reservation": (future_reservation.request_name(ctx.platform.name, pool.name) if request is not None
                            else pool.capacity.reservation),
            "future_reservation": request,
            "flex_start": pool.capacity.flex_start,
            "queued_provisioning": pool.capacity.queued_provisioning,
            "tpu": machine.kind == "tpu",
            "gpu": GpuSpec(accelerator_type=machine.accelerator or "", count=machine.accelerator_count,
                           driver_version=_GPU_DRIVER[pool.gpu_driver or GpuDriver.default])
            if machine.kind == "gpu" else None,
        }
        if shape is not None and shape.multi_host:
            # A multi-host slice is atomic: one GKE node pool per slice, exactly its VMs, compact
            # placement with the topology; `scaling` counts slices (fixed, by the GCP checks).
            names = []
            for index in range(pool.scaling.desired):
                slice_pool = AcceleratorNodePool(
                    f"{ctx.name}-{pool.name}-s{index}",
                    NodePoolArgs(pool_name=f"{pool.name}-s{index}", node_count=shape.vms,
                                 tpu_topology=pool.tpu_topology, compact_placement=True, **common),
                    ctx.opts,
                )
                names.append(slice_pool.name)
            out[pool.name] = names
            continue
        # A pool whose bounds differ autoscales between them (GKE's totals across zones); a fixed
        # one gets exactly its count, spread over its zones.
        # A pool on a future reservation is created empty: `capacity sync` sizes it with the reservation.
        fixed = pool.scaling.min == pool.scaling.max or request is not None
        node_pool = AcceleratorNodePool(
            f"{ctx.name}-{pool.name}",
            NodePoolArgs(pool_name=pool.name,
                         node_count=(0 if request is not None else _per_zone(pool, common["node_locations"]))
                         if fixed else None,
                         autoscaling=None if fixed else Autoscaling(min_nodes=pool.scaling.min,
                                                                    max_nodes=pool.scaling.max),
                         **common),
            ctx.opts,
        )
        out[pool.name] = [node_pool.name]
    return out


def _per_zone(pool: GcpNodePool, zones: list[str]) -> int:
    # GKE's node_count is per zone; the declaration's count is the pool's total.
    return -(-pool.scaling.max // max(1, len(zones)))


def _buckets(ctx: _Context, keys: _Keys) -> dict[BucketRole, SecureBucket]:
    return {
        bucket.role: SecureBucket(
            f"{ctx.name}-{bucket.role.value.replace('_', '-')}",
            SecureBucketArgs(
                role=bucket.role.value,
                location=ctx.platform.region,
                kms_key_id=keys.data.key_id,
                key_grants=[keys.data.grant],
                labels=ctx.labels,
                protect=ctx.protect,
                versioning=bucket.versioning,
                force_destroy=bucket.force_destroy,
                lifecycle=[
                    BucketLifecycleRule(
                        prefix=rule.prefix,
                        delete_after_days=rule.expire_days,
                        transitions=[StorageClassTransition(days=t.days, storage_class=t.storage_class)
                                     for t in rule.transitions],
                        noncurrent_delete_after_days=rule.noncurrent_expire_days,
                        abort_multipart_days=rule.abort_multipart_days,
                    )
                    for rule in bucket.lifecycle
                ],
            ),
            ctx.opts,
        )
        for bucket in ctx.platform.buckets
    }


def _secrets_and_access(
    ctx: _Context, keys: _Keys, agents: ServiceAgents, buckets: dict[BucketRole, SecureBucket]
) -> tuple[dict[str, pulumi.Output[str]], dict[str, pulumi.Output[str]]]:
    """The workloads' principals, and the secrets' ids by declared name."""
    platform = ctx.platform
    store = SecretStore(
        f"{ctx.name}-secrets",
        SecretStoreArgs(secrets=[SecretSpec(name=s.name, description=s.description, rotation_days=s.rotation_days,
                                            next_rotation_time=s.next_rotation_time) for s in platform.secrets],
                        region=platform.region, kms_key_id=keys.secrets.key_id, key_grants=[keys.secrets.grant],
                        values=secret_values(platform), labels=ctx.labels, protect=ctx.protect,
                        secret_manager_member=agents.secret_manager_member),
        ctx.opts,
    )
    principals = {}
    for workload in platform.workloads:
        access = WorkloadAccess(
            f"{ctx.name}-{workload.name}",
            WorkloadAccessArgs(
                project=ctx.settings.project,
                project_number=agents.project_number,
                namespace=workload.namespace,
                service_account=workload.service_account_name,
                buckets=[
                    BucketGrant(key=grant.role.value.replace("_", "-"), bucket_name=buckets[grant.role].bucket_name,
                                access=grant.access.value, prefix=grant.prefix)
                    for grant in workload.buckets
                ],
                secret_ids={name: store.ids[name] for name in workload.secrets},
            ),
            ctx.opts,
        )
        principals[workload.name] = access.principal
    return principals, store.ids
