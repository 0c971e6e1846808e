"""Which declaration element each Google Cloud component is built from (`engine.provenance` for the rest).

The names follow `composition.py`: every top-level component is named after the element it is
built from; a TPU pool is one GKE node pool per slice (`<platform>-<pool>-s<n>`).
"""

from __future__ import annotations

from accelplane.cloud_support import DeclarationPath
from accelplane.clouds.gcp.declaration import GcpPlatform

_GCP = "accelplane:gcp:"


def declaration_paths(platform: GcpPlatform) -> dict[tuple[str, str], DeclarationPath]:
    name = platform.name
    paths: dict[tuple[str, str], DeclarationPath] = {
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
        # The Gateway is part of the Kubernetes layer on GKE only.
        ("accelplane:k8s:InferenceGateway", f"{name}-gateway"): ("inference_endpoint",),
        (f"{_GCP}SecretStore", f"{name}-secrets"): ("secrets",),
        (f"{_GCP}AuditLogs", f"{name}-audit"): ("audit",),
        (f"{_GCP}IapAccess", f"{name}-iap"): ("inference_endpoint", "client_auth", "id_tokens", "callers"),
    }
    # The IAP OAuth client's Secret in each exposed service's namespace (cluster_facts.py).
    for namespace in {workload.namespace for workload in platform.workloads}:
        paths[("kubernetes:core/v1:Secret", f"{name}-iap-{namespace}")] = (
            "inference_endpoint", "client_auth", "id_tokens", "oauth_client_secret")
    for index, pool in enumerate(platform.node_pools):
        paths[(f"{_GCP}AcceleratorNodePool", f"{name}-{pool.name}")] = ("node_pools", index)
        for slice_index in range(pool.scaling.max if pool.tpu_topology else 0):  # one pool per TPU slice
            paths[(f"{_GCP}AcceleratorNodePool", f"{name}-{pool.name}-s{slice_index}")] = ("node_pools", index)
    for index, bucket in enumerate(platform.buckets):
        paths[(f"{_GCP}SecureBucket", f"{name}-{bucket.role.value.replace('_', '-')}")] = ("buckets", index)
    for index, workload in enumerate(platform.workloads):
        paths[(f"{_GCP}WorkloadAccess", f"{name}-{workload.name}")] = ("workloads", index)
    return paths
