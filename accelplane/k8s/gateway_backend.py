"""`GatewayBackend`: a GKE inference service behind the platform's Gateway (`inference_gateway.py`).

Per exposed service, in the service's namespace:
- an `HTTPRoute` attached to the Gateway's HTTPS listener, sending the paths under the service's
  `path_prefix` (PathPrefix match) to its backends' Services, one `backendRef` per backend with the
  backend's weight (the Gateway splits requests in proportion to the weights; a weight of 0 sends
  none, https://gateway-api.sigs.k8s.io/reference/spec/#httpbackendref);
and per backend Service:
- a `HealthCheckPolicy` (networking.gke.io/v1): the load balancer's health check probes the declared
  health path on the serving port, with the declared interval, timeout and thresholds (GKE's default
  would probe `/` and fail a model server that answers only its health path);
- a `GCPBackendPolicy` (networking.gke.io/v1) naming the endpoint's Cloud Armor policy, so only the
  declared client ranges reach the backend (AP-GLB-003 checks it).
Sources: https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources
(health checks, Cloud Armor) and https://gateway-api.sigs.k8s.io/reference/spec/ (HTTPRoute).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.meta.v1 import ObjectMetaArgsDict

from accelplane.config.model import HealthCheck

GATEWAY_API_VERSION = "gateway.networking.k8s.io/v1"
GATEWAY_GROUP = "gateway.networking.k8s.io"
GKE_POLICY_API_VERSION = "networking.gke.io/v1"


@dataclass(frozen=True)
class GatewayBackend:
    gateway_name: str
    gateway_namespace: str
    listener: str  # the Gateway listener routes attach to (sectionName)
    security_policy: pulumi.Input[str]  # Cloud Armor policy name
    health_check: HealthCheck


def _service_target(service: str) -> dict[str, str]:
    return {"group": "", "kind": "Service", "name": service}


@dataclass(frozen=True)
class BackendRef:
    """One backend's Kubernetes Service and its share of the route's requests."""

    service: str
    port: int
    weight: int


def route_to_backends(
    name: str,
    backend: GatewayBackend,
    metadata: ObjectMetaArgsDict,
    path_prefix: str,
    refs: Sequence[BackendRef],
    parent: pulumi.Resource,
    depends_on: Sequence[pulumi.Resource],
) -> None:
    """The service's HTTPRoute: its path prefix to its backends' Services, by weight."""
    k8s.apiextensions.CustomResource(
        f"{name}-route",
        api_version=GATEWAY_API_VERSION,
        kind="HTTPRoute",
        metadata=metadata,
        spec={
            "parentRefs": [
                {
                    "group": GATEWAY_GROUP,
                    "kind": "Gateway",
                    "name": backend.gateway_name,
                    "namespace": backend.gateway_namespace,
                    "sectionName": backend.listener,
                }
            ],
            "rules": [
                {
                    "matches": [{"path": {"type": "PathPrefix", "value": path_prefix}}],
                    "backendRefs": [{"name": ref.service, "port": ref.port, "weight": ref.weight} for ref in refs],
                }
            ],
        },
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on)),
    )


def attach_backend_policies(
    name: str,
    backend: GatewayBackend,
    metadata: ObjectMetaArgsDict,
    service: str,
    port: int,
    parent: pulumi.Resource,
    depends_on: Sequence[pulumi.Resource],
) -> None:
    """The load balancer's health check and Cloud Armor policy for one backend Service."""
    opts = pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on))
    check = backend.health_check
    k8s.apiextensions.CustomResource(
        f"{name}-health-check",
        api_version=GKE_POLICY_API_VERSION,
        kind="HealthCheckPolicy",
        metadata=metadata,
        spec={
            "default": {
                "checkIntervalSec": check.interval_seconds,
                "timeoutSec": check.timeout_seconds,
                "healthyThreshold": check.healthy_threshold,
                "unhealthyThreshold": check.unhealthy_threshold,
                "config": {"type": "HTTP", "httpHealthCheck": {"port": port, "requestPath": check.path}},
            },
            "targetRef": _service_target(service),
        },
        opts=opts,
    )
    k8s.apiextensions.CustomResource(
        f"{name}-backend-policy",
        api_version=GKE_POLICY_API_VERSION,
        kind="GCPBackendPolicy",
        metadata=metadata,
        spec={"default": {"securityPolicy": backend.security_policy}, "targetRef": _service_target(service)},
        opts=opts,
    )
