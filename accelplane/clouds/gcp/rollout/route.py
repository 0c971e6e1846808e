"""A service's live route on GKE: its HTTPRoute's `backendRefs` weights, through the Kubernetes API.

The HTTPRoute is the one the program declares (`clouds/gcp/k8s/gateway_backend.py`): named after
the service, in its workload's namespace, one `backendRef` per backend Service
(`InferenceService.object_name`). The cluster is reached from `clusters.get` (endpoint and CA) with
a Google access token, or through `--context` (`kubernetes_api`). `apply` sends a JSON merge patch
of the route's rules with the `resourceVersion` it read, so a concurrent edit is refused (409)
rather than overwritten. Its `status.parents` say whether the Gateway accepted the route; a route
the Gateway has not accepted serves nothing, whatever its weights, and status says so.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import google.auth.exceptions

from accelplane.cloud_support import Connection
from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.credentials import credentials_problem
from accelplane.clouds.gcp.declaration import GcpPlatform, gcp_platform
from accelplane.clouds.gcp.k8s.cluster_access import cluster_access
from accelplane.declaration import InferenceService, Platform
from accelplane.rollout.kubernetes_api import (
    CloudClusterAccess,
    ClusterAccess,
    KubernetesApi,
    KubernetesApiError,
    from_kubeconfig,
)
from accelplane.rollout.route import CloudRoute, LiveRoute, RouteError, RouteRequest
from accelplane.rollout.traffic import Traffic

GATEWAY_API = "/apis/gateway.networking.k8s.io/v1"
# GKE's API server takes Google access tokens with this scope (gke-gcloud-auth-plugin asks for it).
TOKEN_SCOPE = "https://www.googleapis.com/auth/cloud-platform"


def cluster_name(platform: GcpPlatform) -> str:
    assert platform.gcp is not None
    return f"projects/{platform.gcp.project}/locations/{platform.region}/clusters/{platform.name}"


def gke_access(platform: GcpPlatform, connection: Connection) -> ClusterAccess:
    """The cluster's endpoint and CA from `clusters.get`, and a token from the same credentials."""
    assert platform.gcp is not None
    settings = gcp_connection(connection)
    clients = GcpClients(platform.gcp.project, platform.region, endpoints=settings.api_endpoints,
                         impersonate=settings.impersonate_service_account, scope=TOKEN_SCOPE)
    name = cluster_name(platform)
    try:
        cluster = clients.read(clients.service("container").projects().locations().clusters().get(name=name))
    except google.auth.exceptions.DefaultCredentialsError as error:
        raise RouteError(credentials_problem(error)) from None
    except GcpReadError as error:
        raise RouteError(f"cannot read cluster {name}: {error.code}: {error.message}") from None
    access = cluster_access(clients.credentials(), cluster, f"cluster {name}", clients.timeout)
    if isinstance(access, str):
        raise RouteError(f"{access} (status {cluster.get('status', 'unknown')})")
    return access


class GkeRoute(LiveRoute):
    def __init__(self, api: KubernetesApi, platform: GcpPlatform, service: InferenceService) -> None:
        self.api = api
        self.service = service
        workload = next(w for w in platform.workloads if w.name == service.workload)
        self.namespace = workload.namespace
        self.path = f"{GATEWAY_API}/namespaces/{self.namespace}/httproutes/{service.name}"
        self.refs = {service.object_name(backend): backend.name for backend in service.serving_backends}

    @property
    def where(self) -> str:
        return f"HTTPRoute {self.namespace}/{self.service.name} ({self.api.access.where})"

    def _read(self) -> dict[str, Any]:
        try:
            return self.api.get(self.path)
        except KubernetesApiError as error:
            raise RouteError(f"cannot read {self.where}: {error}") from None

    def _rule(self, route: dict[str, Any]) -> dict[str, Any]:
        for rule in (route.get("spec") or {}).get("rules") or []:
            if any(ref.get("name") in self.refs for ref in rule.get("backendRefs") or []):
                return rule
        raise RouteError(f"{self.where} has no rule forwarding to {', '.join(sorted(self.refs))}")

    def weights(self) -> dict[str, int]:
        route = self._read()
        refs = self._rule(route).get("backendRefs") or []
        live = {self.refs.get(str(ref.get("name")), str(ref.get("name"))): int(ref.get("weight", 1)) for ref in refs}
        total = sum(live.values())
        shares = {name: round(100 * weight / total) if total else 0 for name, weight in live.items()}
        return {name: shares.get(name, 0) for name in self.refs.values()} | shares

    def state(self) -> str | None:
        """The route's conditions from each parent Gateway (Accepted, ResolvedRefs) and the Gateway's
        own (Programmed): a route the Gateway has not accepted serves nothing, whatever its weights."""
        route = self._read()
        parts = []
        for parent in (route.get("status") or {}).get("parents") or []:
            parts.append(_conditions(f"route on {parent.get('parentRef', {}).get('name', '?')}", parent,
                                     ("Accepted", "ResolvedRefs")))
        if not parts:
            parts.append("route: no Gateway has reported on it yet (status.parents empty)")
        for ref in (route.get("spec") or {}).get("parentRefs") or []:
            namespace = ref.get("namespace") or self.namespace
            path = f"{GATEWAY_API}/namespaces/{namespace}/gateways/{ref.get('name')}"
            try:
                gateway = self.api.get(path)
            except KubernetesApiError as error:
                parts.append(f"Gateway {namespace}/{ref.get('name')} not read: {error}")
                continue
            parts.append(_conditions(f"Gateway {namespace}/{ref.get('name')}", gateway.get("status") or {},
                                     ("Programmed",)))
        return "; ".join(parts)

    def apply(self, weights: dict[str, int]) -> None:
        route = self._read()
        rules = (route.get("spec") or {}).get("rules") or []
        target = self._rule(route)
        names = {backend: ref for ref, backend in self.refs.items()}
        for ref in target.get("backendRefs") or []:
            backend = self.refs.get(str(ref.get("name")))
            if backend is not None and backend in weights:
                ref["weight"] = weights[backend]
        present = {self.refs.get(str(ref.get("name"))) for ref in target.get("backendRefs") or []}
        for backend, weight in weights.items():
            if backend not in present and weight:
                raise RouteError(f"{self.where} has no backendRef {names.get(backend, backend)!r} for backend "
                                 f"{backend!r}: run `pulumi up` first")
        patch = {"metadata": {"resourceVersion": route["metadata"].get("resourceVersion")}, "spec": {"rules": rules}}
        try:
            self.api.merge_patch(self.path, patch)
        except KubernetesApiError as error:
            raise RouteError(f"cannot set the weights of {self.where}: {error}") from None

    def traffic(self, backends: list[str], window_seconds: int, now: datetime) -> Traffic:
        raise RouteError("GKE: per-backend metrics come from Prometheus (rollout.metrics: prometheus)")


def _conditions(what: str, status: dict[str, Any], wanted: tuple[str, ...]) -> str:
    found = {c.get("type"): c for c in status.get("conditions") or []}
    said = []
    for name in wanted:
        condition = found.get(name)
        if condition is None:
            said.append(f"{name} not reported")
        elif condition.get("status") == "True":
            said.append(name)
        else:
            reason = condition.get("reason") or "False"
            message = condition.get("message") or ""
            said.append(f"NOT {name} ({reason}{': ' + message if message else ''})")
    return f"{what}: {', '.join(said)}"


def gke_route(request: RouteRequest) -> GkeRoute:
    if not request.service.expose:
        raise RouteError("no Gateway route: the service is not exposed")
    try:
        access = (from_kubeconfig(request.kube_context) if request.kube_context
                  else gke_access(gcp_platform(request.platform), request.connection))
    except ValueError as error:
        raise RouteError(f"--context: {error}") from None
    return GkeRoute(KubernetesApi(access), gcp_platform(request.platform), request.service)


def _cluster_access(platform: Platform, connection: Connection) -> ClusterAccess:
    return gke_access(gcp_platform(platform), connection)


ROUTE = CloudRoute("gcp", gke_route)  # this cloud's `accelplane.routes` entry point
CLUSTER_ACCESS = CloudClusterAccess("gcp", _cluster_access)  # its `accelplane.cluster_access` entry point
