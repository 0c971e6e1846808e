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
- a `GCPBackendPolicy` (networking.gke.io/v1) naming the endpoint's Cloud Armor policy (the service's
  own, rate-limiting one where it declares a rate limit), so only the declared client ranges reach
  the backend (AP-GLB-003 checks it), with the backend service timeout (one try) and connection
  draining (a removed pod finishes its requests), and Identity-Aware Proxy where the endpoint
  authenticates clients (https://cloud.google.com/iap/docs/enabling-gke-howto, Gateway API);
and on the HTTPRoute rule the request and backendRequest timeouts (Gateway API `timeouts`). The
HealthCheckPolicy carries `response` where the service matches the probe's body (Google's probes
pass on 200 only).
Sources: https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources
(health checks, Cloud Armor) and https://gateway-api.sigs.k8s.io/reference/spec/ (HTTPRoute).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from accelplane.declaration import HealthCheck
from accelplane.k8s.service_backend import Attachment, BackendRef, ServiceBackend

GATEWAY_API_VERSION = "gateway.networking.k8s.io/v1"
GATEWAY_GROUP = "gateway.networking.k8s.io"
GKE_POLICY_API_VERSION = "networking.gke.io/v1"


# A backend that leaves (scale-in, rollout) keeps its in-flight requests this long; the pods' preStop
# pause outlasts it (`accelplane.k8s.inference_service`).
DRAINING_TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class ServiceEdge:
    """What the load balancer applies to one exposed service."""

    security_policy: pulumi.Input[str]  # Cloud Armor policy name
    health_check: HealthCheck
    response: str | None  # text the probe's response body must contain
    request_timeout: int | None  # seconds, the whole request (None: the load balancer's default)
    backend_timeout: int | None  # seconds, one try at a backend


@dataclass(frozen=True)
class GatewayBackend(ServiceBackend):
    gateway_name: str
    gateway_namespace: str
    listener: str  # the Gateway listener routes attach to (sectionName)
    security_policy: pulumi.Input[str]  # Cloud Armor policy name (the endpoint's allow-list)
    health_check: HealthCheck
    services: Mapping[str, ServiceEdge] = field(default_factory=dict)
    # GCPBackendPolicy `iap` of every exposed backend: Identity-Aware Proxy with the OAuth client's id and
    # the Secret (in each service's namespace) holding its secret; None: no client authentication.
    iap: Mapping[str, object] | None = None

    def edge(self, service: str) -> ServiceEdge:
        found = self.services.get(service)
        if found is not None:
            return found
        return ServiceEdge(self.security_policy, self.health_check, None, None, None)

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
                        **_timeouts(self.edge(refs[0].service_name) if refs else None),
                    }
                ],
            },
            opts=pulumi.ResourceOptions(parent=at.parent, depends_on=list(at.depends_on)),
        )

    def attach_backend(self, at: Attachment, ref: BackendRef) -> None:
        """The load balancer's health check and Cloud Armor policy for one backend Service."""
        opts = pulumi.ResourceOptions(parent=at.parent, depends_on=list(at.depends_on))
        edge = self.edge(ref.service_name)
        check = edge.health_check
        probe: dict[str, object] = {"port": ref.port, "requestPath": check.path}
        if edge.response is not None:
            probe["response"] = edge.response
        policy: dict[str, object] = {
            "securityPolicy": edge.security_policy,
            "connectionDraining": {"drainingTimeoutSec": DRAINING_TIMEOUT_SECONDS},
        }
        if edge.backend_timeout is not None:
            policy["timeoutSec"] = edge.backend_timeout
        if self.iap is not None:
            policy["iap"] = dict(self.iap)
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
                    "config": {"type": "HTTP", "httpHealthCheck": probe},
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
            spec={"default": policy, "targetRef": _service_target(ref.object_name)},
            opts=opts,
        )


def _timeouts(edge: ServiceEdge | None) -> dict[str, object]:
    """The route rule's `timeouts` (https://gateway-api.sigs.k8s.io/reference/spec/#httproutetimeouts)."""
    if edge is None or edge.request_timeout is None:
        return {}
    return {"timeouts": {"request": f"{edge.request_timeout}s", "backendRequest": f"{edge.backend_timeout}s"}}


def _service_target(service: str) -> dict[str, str]:
    return {"group": "", "kind": "Service", "name": service}
