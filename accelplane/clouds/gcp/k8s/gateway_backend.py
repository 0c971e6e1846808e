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

from accelplane.declaration import HealthCheck
from accelplane.k8s.service_backend import Attachment, BackendRef, ServiceBackend

GATEWAY_API_VERSION = "gateway.networking.k8s.io/v1"
GATEWAY_GROUP = "gateway.networking.k8s.io"
GKE_POLICY_API_VERSION = "networking.gke.io/v1"


@dataclass(frozen=True)
class GatewayBackend(ServiceBackend):
    gateway_name: str
    gateway_namespace: str
    listener: str  # the Gateway listener routes attach to (sectionName)
    security_policy: pulumi.Input[str]  # Cloud Armor policy name
    health_check: HealthCheck

    def attach_service(self, at: Attachment, path_prefix: str, refs: Sequence[BackendRef]) -> None:
        """The service's HTTPRoute: its path prefix to its backends' Services, by weight."""
        k8s.apiextensions.CustomResource(
            f"{at.name}-route",
            api_version=GATEWAY_API_VERSION,
            kind="HTTPRoute",
            metadata=at.metadata,
            spec={
                "parentRefs": [
                    {
                        "group": GATEWAY_GROUP,
                        "kind": "Gateway",
                        "name": self.gateway_name,
                        "namespace": self.gateway_namespace,
                        "sectionName": self.listener,
                    }
                ],
                "rules": [
                    {
                        "matches": [{"path": {"type": "PathPrefix", "value": path_prefix}}],
                        "backendRefs": [
                            {"name": ref.object_name, "port": ref.port, "weight": ref.weight} for ref in refs
                        ],
                    }
                ],
            },
            opts=pulumi.ResourceOptions(parent=at.parent, depends_on=list(at.depends_on)),
        )

    def attach_backend(self, at: Attachment, ref: BackendRef) -> None:
        """The load balancer's health check and Cloud Armor policy for one backend Service."""
        opts = pulumi.ResourceOptions(parent=at.parent, depends_on=list(at.depends_on))
        check = self.health_check
        k8s.apiextensions.CustomResource(
            f"{at.name}-health-check",
            api_version=GKE_POLICY_API_VERSION,
            kind="HealthCheckPolicy",
            metadata=at.metadata,
            spec={
                "default": {
                    "checkIntervalSec": check.interval_seconds,
                    "timeoutSec": check.timeout_seconds,
                    "healthyThreshold": check.healthy_threshold,
                    "unhealthyThreshold": check.unhealthy_threshold,
                    "config": {"type": "HTTP", "httpHealthCheck": {"port": ref.port, "requestPath": check.path}},
                },
                "targetRef": _service_target(ref.object_name),
            },
            opts=opts,
        )
        k8s.apiextensions.CustomResource(
            f"{at.name}-backend-policy",
            api_version=GKE_POLICY_API_VERSION,
            kind="GCPBackendPolicy",
            metadata=at.metadata,
            spec={"default": {"securityPolicy": self.security_policy}, "targetRef": _service_target(ref.object_name)},
            opts=opts,
        )


def _service_target(service: str) -> dict[str, str]:
    return {"group": "", "kind": "Service", "name": service}
