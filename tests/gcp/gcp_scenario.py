"""A whole GCP platform wired from the components by hand, as the composition will wire it.

Realistic arguments for a TPU migration stack: a multi-host TPU v5p training slice on a specific
reservation, a single-host TPU v6e inference pool on spot capacity with autoscaling, an A3 H100
GPU pool, a CPU pool; buckets, secrets, two workloads and the inference endpoint. `prod` protects
keys, buckets and secrets and opens the API to two CIDRs; `dev` keeps the API private.
"""

from __future__ import annotations

from typing import Any

import pulumi

from accelplane.clouds.gcp.components.bucket import (
    BucketLifecycleRule,
    SecureBucket,
    SecureBucketArgs,
    StorageClassTransition,
)
from accelplane.clouds.gcp.components.cluster import GkeCluster, GkeClusterArgs
from accelplane.clouds.gcp.components.encryption_key import EncryptionKey, EncryptionKeyArgs
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
from accelplane.declaration import EnforcementMode, RateLimit, RateLimitAction, RateLimitKey
from tests.gcp.gcp_harness import PROJECT, REGION

VERSION = "1.33.5-gke.1080000"
API_CIDRS = ["203.0.113.0/24", "198.51.100.16/28"]
TARGET_PORT = 8080
NODE_CIDR, PODS_CIDR, SERVICES_CIDR = "10.10.0.0/20", "10.64.0.0/14", "10.80.0.0/20"
# Thirteen ranges: more than one Cloud Armor rule holds (10 per rule).
ENDPOINT_CIDRS = ["203.0.113.0/24", *(f"198.51.100.{i * 16}/28" for i in range(12))]
RESERVATION = "acme-v5p-2x2x4"
TPU_TAINT = NodeTaint("google.com/tpu", "present", "NO_SCHEDULE")
GPU_TAINT = NodeTaint("nvidia.com/gpu", "present", "NO_SCHEDULE")


def platform_labels(env: str) -> dict[str, str]:
    return {
        "accelplane-platform": "acme-ml",
        "accelplane-environment": env,
        "owner": "ml-platform",
        "cost-centre": "cc-4411",
    }


# Pool name -> NodePoolArgs keyword arguments (cluster, versions, SA and labels added in build).
POOLS: dict[str, dict[str, Any]] = {
    "train-v5p": {
        "node_locations": ["us-east5-a"],
        "machine_type": "ct5p-hightpu-4t",
        "disk_size_gb": 200,
        "node_labels": {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
            "cloud.google.com/gke-tpu-topology": "2x2x4",
            "accelplane.io/pool": "train-v5p",
        },
        "taints": [TPU_TAINT],
        "node_count": 4,  # 2x2x4 = 16 chips, 4 chips per VM
        "tpu_topology": "2x2x4",
        "reservation": RESERVATION,
    },
    "infer-v6e": {
        "node_locations": ["us-east5-b"],
        "machine_type": "ct6e-standard-4t",
        "disk_size_gb": 100,
        "disk_type": "hyperdisk-balanced",
        "node_labels": {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
            "cloud.google.com/gke-tpu-topology": "2x2",
            "accelplane.io/pool": "infer-v6e",
        },
        "taints": [TPU_TAINT],
        "autoscaling": Autoscaling(min_nodes=1, max_nodes=4),
        "spot": True,
    },
    "gpu-h100": {
        "node_locations": ["us-east5-a"],
        "machine_type": "a3-highgpu-8g",
        "disk_size_gb": 500,
        "node_labels": {"accelplane.io/pool": "gpu-h100"},
        "taints": [GPU_TAINT],
        "node_count": 2,
        "gpu": GpuSpec(accelerator_type="nvidia-h100-80gb", count=8, driver_version="LATEST"),
    },
    "cpu": {
        "node_locations": ["us-east5-a", "us-east5-b"],
        "machine_type": "n2-standard-8",
        "disk_size_gb": 100,
        "node_labels": {"accelplane.io/pool": "cpu"},
        "taints": [],
        "autoscaling": Autoscaling(min_nodes=1, max_nodes=6),
    },
}

LIFECYCLE = {
    "datasets": [
        BucketLifecycleRule(
            transitions=(StorageClassTransition(30, "NEARLINE"), StorageClassTransition(90, "COLDLINE")),
            noncurrent_delete_after_days=30,
            abort_multipart_days=7,
        )
    ],
    "checkpoints": [
        BucketLifecycleRule(
            prefix="runs/", delete_after_days=60, noncurrent_delete_after_days=14, abort_multipart_days=3
        )
    ],
}


def build_platform(env: str) -> dict[str, Any]:
    prod = env == "prod"
    labels = platform_labels(env)
    agents = ServiceAgents("acme-ml-agents", ServiceAgentsArgs(project=PROJECT))
    node_sa = NodeServiceAccount("acme-ml-nodes", NodeServiceAccountArgs(account_id="acme-ml-nodes", project=PROJECT))
    network = PlatformNetwork(
        "acme-ml-net",
        NetworkArgs(
            region=REGION,
            node_cidr=NODE_CIDR,
            pods_cidr=PODS_CIDR,
            services_cidr=SERVICES_CIDR,
            load_balancer_target_ports=[TARGET_PORT],
            node_service_account_email=node_sa.email,
        ),
    )
    ring = KeyRing("acme-ml-keys", KeyRingArgs(key_ring_name="acme-ml", location=REGION, protect=prod))

    def key(role: str, member: pulumi.Output[str], **extra: Any) -> EncryptionKey:
        return EncryptionKey(
            f"acme-ml-{role}-key",
            EncryptionKeyArgs(
                key_ring_id=ring.key_ring_id,
                key_name=role,
                encrypter_decrypter_members=[member],
                labels=labels,
                protect=prod,
                **extra,
            ),
        )

    gke_key = key("gke", agents.gke_member)
    data_key = key("data", agents.storage_member)
    secrets_key = key("secrets", agents.secret_manager_member, rotation_days=30)
    cluster = GkeCluster(
        "acme-ml-gke",
        GkeClusterArgs(
            cluster_name="acme-ml",
            project=PROJECT,
            location=REGION,
            kubernetes_version=VERSION,
            network_id=network.network_id,
            subnet_id=network.subnet_id,
            pods_range_name=network.pods_range_name,
            services_range_name=network.services_range_name,
            api_allowed_cidrs=API_CIDRS if prod else [],
            secrets_key_id=gke_key.key_id,
            node_service_account_email=node_sa.email,
            labels=labels,
            deletion_protection=prod,
            key_grants=[gke_key.grant],
        ),
    )
    for pool_name, spec in POOLS.items():
        AcceleratorNodePool(
            f"acme-ml-{pool_name}",
            NodePoolArgs(
                pool_name=pool_name,
                cluster_id=cluster.cluster_id,
                location=REGION,
                node_service_account_email=node_sa.email,
                kubernetes_version=VERSION,
                labels={**labels, "pool": pool_name},
                **spec,
            ),
        )
    buckets = {
        role: SecureBucket(
            f"acme-ml-{role}",
            SecureBucketArgs(
                role=role,
                location=REGION,
                kms_key_id=data_key.key_id,
                key_grants=[data_key.grant],
                labels=labels,
                protect=prod,
                lifecycle=LIFECYCLE[role],
                retention_days=7 if role == "checkpoints" else None,
            ),
        )
        for role in ("datasets", "checkpoints")
    }
    secrets = SecretStore(
        "acme-ml-secrets",
        SecretStoreArgs(
            secrets=[SecretSpec("hf-token", "Hugging Face read token"), SecretSpec("wandb-key")],
            region=REGION,
            kms_key_id=secrets_key.key_id,
            key_grants=[secrets_key.grant],
            values={"hf-token": pulumi.Output.secret("hf_offline_value")},
            labels=labels,
            protect=prod,
        ),
    )
    trainer = WorkloadAccess(
        "acme-ml-train",
        WorkloadAccessArgs(
            project=PROJECT,
            project_number=agents.project_number,
            namespace="training",
            service_account="trainer",
            buckets=[
                BucketGrant("datasets", buckets["datasets"].bucket_name, "read"),
                BucketGrant("checkpoints", buckets["checkpoints"].bucket_name, "read_write", prefix="runs/llm/"),
            ],
            secret_ids={"hf-token": secrets.ids["hf-token"]},
        ),
    )
    WorkloadAccess(
        "acme-ml-serve",
        WorkloadAccessArgs(
            project=PROJECT,
            project_number=agents.project_number,
            namespace="inference",
            service_account="server",
            buckets=[BucketGrant("checkpoints", buckets["checkpoints"].bucket_name, "read", prefix="exports/")],
            secret_ids={},
        ),
    )
    WorkloadAccess(
        "acme-ml-ingest",
        WorkloadAccessArgs(
            project=PROJECT,
            project_number=agents.project_number,
            namespace="batch",
            service_account="ingest",
            buckets=[BucketGrant("datasets", buckets["datasets"].bucket_name, "write")],
            secret_ids={"wandb-key": secrets.ids["wandb-key"]},
        ),
    )
    endpoint = InferenceEndpoint(
        "acme-ml-endpoint",
        InferenceEndpointArgs(
            allowed_cidrs=ENDPOINT_CIDRS if prod else ["203.0.113.0/24"],
            labels=labels,
            tls_profile="RESTRICTED" if prod else "MODERN",
            certificate="projects/acme-ml-prod/locations/global/certificates/llm" if prod else None,
            certificate_map_name="acme-ml-endpoint" if prod else None,
            # prod: per-IP throttling with an exempt health path; dev: a count-only ban keyed by an API
            # key header (both forms reach the discovery walk).
            service_limits={"llm": RateLimit(requests=300, window_seconds=60, exempt_paths=["/healthz"])} if prod
            else {"llm": RateLimit(requests=1000, window_seconds=600, key=RateLimitKey.header, header="X-Api-Key",
                                   action=RateLimitAction.ban, ban_seconds=600, mode=EnforcementMode.count_only)},
        ),
    )
    return {
        "projectNumber": agents.project_number,
        "gkeMember": agents.gke_member,
        "storageMember": agents.storage_member,
        "secretManagerMember": agents.secret_manager_member,
        "nodeEmail": node_sa.email,
        "nodeMember": node_sa.member,
        "podsRange": network.pods_range_name,
        "servicesRange": network.services_range_name,
        "subnetId": network.subnet_id,
        "keyRingId": ring.key_ring_id,
        "gkeKeyId": gke_key.key_id,
        "dataKeyId": data_key.key_id,
        "clusterName": cluster.name,
        "endpoint": cluster.endpoint,
        "caCertificate": cluster.ca_certificate,
        "workloadPool": cluster.workload_pool,
        "bucketNames": {role: bucket.bucket_name for role, bucket in buckets.items()},
        "bucketUrls": {role: bucket.url for role, bucket in buckets.items()},
        "secretIds": secrets.ids,
        "trainerPrincipal": trainer.principal,
        "address": endpoint.address,
        "addressName": endpoint.address_name,
        "sslPolicyName": endpoint.ssl_policy_name,
        "securityPolicyName": endpoint.security_policy_name,
    }
