"""Which declaration element each AWS component is built from (`engine.provenance` for the rest).

The names follow `composition.py` and `components/inference_endpoint.py`: every top-level
component is named after the element it is built from, so a finding on any of its children points
at that element's line.
"""

from __future__ import annotations

from accelplane.cloud_support import DeclarationPath
from accelplane.clouds.aws.declaration import AwsPlatform

_AWS = "accelplane:aws:"


def declaration_paths(platform: AwsPlatform) -> dict[tuple[str, str], DeclarationPath]:
    name = platform.name
    paths: dict[tuple[str, str], DeclarationPath] = {
        (f"{_AWS}EncryptionKey", f"{name}-eks"): ("kubernetes_version",),
        (f"{_AWS}EncryptionKey", f"{name}-data"): ("buckets",),
        (f"{_AWS}EncryptionKey", f"{name}-secrets"): ("secrets",),
        (f"{_AWS}PlatformNetwork", f"{name}-network"): ("network",),
        (f"{_AWS}EksCluster", f"{name}-eks"): ("kubernetes_version",),
        # The groups' world-facing rules come from the endpoint's allowed CIDRs.
        (f"{_AWS}PlatformSecurityGroups", f"{name}-sg"): (
            ("inference_endpoint", "allowed_cidrs") if platform.inference_endpoint else ("network",)
        ),
        (f"{_AWS}NodeRole", f"{name}-node"): ("node_pools",),
        (f"{_AWS}InferenceEndpoint", f"{name}-inference"): ("inference_endpoint",),
        (f"{_AWS}SecretStore", f"{name}-secrets"): ("secrets",),
        (f"{_AWS}AuditTrail", f"{name}-audit"): ("audit",),
        (f"{_AWS}SecretAccess", f"{name}-secret-access"): ("secrets",),
        ("pulumi:providers:aws", f"{name}-aws"): ("region",),
        # The AWS Load Balancer Controller is part of the Kubernetes layer on EKS only.
        ("accelplane:k8s:LoadBalancerController", f"{name}-lbc"): ("kubernetes", "addons_profile"),
    }
    for index, pool in enumerate(platform.node_pools):
        paths[(f"{_AWS}AcceleratorNodePool", f"{name}-{pool.name}")] = ("node_pools", index)
    for index, bucket in enumerate(platform.buckets):
        paths[(f"{_AWS}SecureBucket", f"{name}-{bucket.role.value.replace('_', '-')}")] = ("buckets", index)
    for index, workload in enumerate(platform.workloads):
        paths[(f"{_AWS}WorkloadRole", f"{name}-{workload.name}")] = ("workloads", index)
    kubernetes = platform.kubernetes
    for index, service in enumerate(kubernetes.inference_services if kubernetes else []):
        at: DeclarationPath = ("kubernetes", "inference_services", index)
        paths[("aws:lb/listenerRule:ListenerRule", f"{name}-inference-rule-{service.name}")] = (*at, "path_prefix")
        for position, backend in enumerate(service.serving_backends):
            # The inline backend is the service itself.
            element: DeclarationPath = at if service.backends is None else (*at, "backends", position)
            paths[("aws:lb/targetGroup:TargetGroup", f"{name}-inference-tg-{service.name}-{backend.name}")] = element
    return paths
