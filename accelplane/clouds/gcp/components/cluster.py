"""`GkeCluster`: a private, VPC-native GKE Standard cluster with a pinned version.

- Private nodes (no external IPs); the control plane is reachable only from `api_allowed_cidrs`
  (master authorized networks, enforced on the private endpoint too, Google's own public IPs not
  admitted); with an empty list the public endpoint is off. The DNS-based endpoint is closed to
  external traffic: it is authorised by IAM, not by source address, and would bypass the list.
- Workload Identity (`<project>.svc.id.goog`): pods get their own identities, never the node's.
- Application-layer secrets encryption: Kubernetes Secrets in etcd are encrypted with the
  platform's Cloud KMS key (`key_grants`: GKE's service agent must hold the key first, or
  creation fails).
- Shielded nodes, Dataplane V2 (`ADVANCED_DATAPATH`: enforces the Kubernetes layer's
  NetworkPolicies, which GKE otherwise ignores), Gateway API (standard channel) for the endpoint.
- Version pinned with `min_master_version`; no release channel unless one is given
  (`UNSPECIFIED`), so node pools may keep auto-upgrade off. GKE still upgrades an unsupported
  control-plane version at end of life; a channel, when declared, owns the version.
- Control-plane logs (system, API server, controller manager, scheduler) and metrics, with
  Managed Service for Prometheus.
- The default node pool is removed once created (`node_config` only shapes that throw-away
  pool: the node service account, never the Compute Engine default one, and GKE metadata);
  the composition creates the real pools (node_pool.py).
- `deletion_protection` in prod: the provider refuses to delete the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.container as container

CONTROL_PLANE_COMPONENTS = ("SYSTEM_COMPONENTS", "APISERVER", "CONTROLLER_MANAGER", "SCHEDULER")
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
RELEASE_CHANNELS = ("RAPID", "REGULAR", "STABLE", "EXTENDED")


@dataclass(frozen=True)
class GkeClusterArgs:
    cluster_name: str
    project: str
    # A region (regional control plane, the default for production) or a zone.
    location: str
    # Pinned GKE version, e.g. "1.33.5-gke.1080000" (or a "1.33" prefix GKE resolves).
    kubernetes_version: str
    network_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str]
    pods_range_name: str
    services_range_name: str
    api_allowed_cidrs: Sequence[str]
    secrets_key_id: pulumi.Input[str]
    node_service_account_email: pulumi.Input[str]
    labels: Mapping[str, str]
    deletion_protection: bool
    release_channel: str | None = None
    # The key's grant to GKE's service agent (EncryptionKey.grant): the cluster waits for it.
    key_grants: Sequence[pulumi.Resource] = ()
    # GPU pools whose driver GKE installs: GKE's managed DCGM metrics (GPU utilisation, memory, XID)
    # go to Managed Service for Prometheus (the idle-accelerator report and alerts read them).
    gpu_metrics: bool = False

    def __post_init__(self) -> None:
        if self.release_channel is not None and self.release_channel not in RELEASE_CHANNELS:
            raise ValueError(f"release_channel {self.release_channel!r}: one of {', '.join(RELEASE_CHANNELS)}")


class GkeCluster(pulumi.ComponentResource):
    cluster_id: pulumi.Output[str]
    name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    ca_certificate: pulumi.Output[str]
    workload_pool: str

    def __init__(self, name: str, args: GkeClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:GkeCluster", name, None, opts)
        public = bool(args.api_allowed_cidrs)
        workload_pool = f"{args.project}.svc.id.goog"
        cluster = container.Cluster(
            f"{name}-cluster",
            name=args.cluster_name,
            project=args.project,
            location=args.location,
            min_master_version=args.kubernetes_version,
            release_channel={"channel": args.release_channel or "UNSPECIFIED"},
            network=args.network_id,
            subnetwork=args.subnet_id,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy={
                "cluster_secondary_range_name": args.pods_range_name,
                "services_secondary_range_name": args.services_range_name,
            },
            datapath_provider="ADVANCED_DATAPATH",
            private_cluster_config={
                "enable_private_nodes": True,
                "enable_private_endpoint": not public,
            },
            master_authorized_networks_config={
                "cidr_blocks": [
                    {"cidr_block": cidr, "display_name": f"api-allowed-{index}"}
                    for index, cidr in enumerate(args.api_allowed_cidrs)
                ],
                "gcp_public_cidrs_access_enabled": False,
                "private_endpoint_enforcement_enabled": True,
            },
            control_plane_endpoints_config={"dns_endpoint_config": {"allow_external_traffic": False}},
            master_auth={"client_certificate_config": {"issue_client_certificate": False}},
            enable_legacy_abac=False,
            workload_identity_config={"workload_pool": workload_pool},
            database_encryption={"state": "ENCRYPTED", "key_name": args.secrets_key_id},
            enable_shielded_nodes=True,
            gateway_api_config={"channel": "CHANNEL_STANDARD"},
            addons_config={"http_load_balancing": {"disabled": False}},
            logging_config={"enable_components": list(CONTROL_PLANE_COMPONENTS)},
            monitoring_config={
                "enable_components": [*CONTROL_PLANE_COMPONENTS, *(["DCGM"] if args.gpu_metrics else [])],
                "managed_prometheus": {"enabled": True},
            },
            remove_default_node_pool=True,
            initial_node_count=1,
            node_config={
                "service_account": args.node_service_account_email,
                "oauth_scopes": [CLOUD_PLATFORM_SCOPE],
                "shielded_instance_config": {"enable_secure_boot": True, "enable_integrity_monitoring": True},
                "workload_metadata_config": {"mode": "GKE_METADATA"},
                "metadata": {"disable-legacy-endpoints": "true"},
            },
            resource_labels=dict(args.labels),
            deletion_protection=args.deletion_protection,
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=list(args.key_grants),
                # The default pool is deleted right after creation; what GKE reports for it later
                # must not show as a change (or replace the cluster).
                ignore_changes=["nodeConfig", "initialNodeCount"],
            ),
        )
        self.cluster_id = cluster.id
        self.name = cluster.name
        self.endpoint = cluster.endpoint
        self.ca_certificate = cluster.master_auth.apply(lambda auth: auth.cluster_ca_certificate or "")
        self.workload_pool = workload_pool
        self.register_outputs(
            {"name": cluster.name, "endpoint": cluster.endpoint, "workloadPool": workload_pool}
        )
