"""GKE Gateway API objects as the load balancer rules read them.

The Kubernetes layer declares the inference endpoint as a `Gateway` of a GKE GatewayClass, the
`HTTPRoute`s attached to it (`spec.parentRefs`) and the GKE policy objects that configure the
load balancer GKE builds: `GCPBackendPolicy` (`spec.default.securityPolicy`: the Cloud Armor policy of
the backend Service it targets) and `GCPGatewayPolicy` (`spec.default.sslPolicy`: the SSL policy of the
Gateway it targets). Objects without a namespace are in `default`, as the API server puts them.
"""

from __future__ import annotations

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.view import Resource, as_list, as_str, get

# GKE GatewayClasses whose load balancer has an internet-facing address (single- and multi-cluster).
EXTERNAL_CLASSES = frozenset(
    {
        "gke-l7-global-external-managed",
        "gke-l7-regional-external-managed",
        "gke-l7-gxlb",
        "gke-l7-global-external-managed-mc",
        "gke-l7-regional-external-managed-mc",
        "gke-l7-gxlb-mc",
    }
)
_GATEWAY_GROUP = "gateway.networking.k8s.io"


def namespace(resource: Resource) -> str:
    return as_str(resource.get("metadata", "namespace")) or "default"


def object_name(resource: Resource) -> str:
    return as_str(resource.get("metadata", "name"))


def is_external(gateway: Resource) -> bool:
    return as_str(gateway.get("spec", "gatewayClassName")) in EXTERNAL_CLASSES


def routes(graph: ReferenceGraph, gateway: Resource) -> list[Resource]:
    """The HTTPRoutes whose parentRefs name `gateway`."""
    name, where = object_name(gateway), namespace(gateway)
    found = []
    for route in graph.of_type(t.K8S_HTTP_ROUTE):
        for parent in as_list(route.get("spec", "parentRefs")):
            kind = as_str(get(parent, "kind")) or "Gateway"
            group = as_str(get(parent, "group")) or _GATEWAY_GROUP
            if (kind, group) == ("Gateway", _GATEWAY_GROUP) and as_str(get(parent, "name")) == name and (
                as_str(get(parent, "namespace")) or namespace(route)) == where:
                found.append(route)
                break
    return found


def backend_services(graph: ReferenceGraph, gateway: Resource) -> list[tuple[str, str]]:
    """(namespace, name) of every Service the gateway's routes send traffic to."""
    found: set[tuple[str, str]] = set()
    for route in routes(graph, gateway):
        for rule in as_list(route.get("spec", "rules")):
            for ref in as_list(get(rule, "backendRefs")):
                if (as_str(get(ref, "kind")) or "Service") == "Service" and not as_str(get(ref, "group")):
                    found.add((as_str(get(ref, "namespace")) or namespace(route), as_str(get(ref, "name"))))
    return sorted(found)


def service_objects(graph: ReferenceGraph) -> dict[tuple[str, str], Resource]:
    """(namespace, name) -> the Kubernetes Service of the graph with that name."""
    return {(namespace(service), object_name(service)): service for service in graph.of_type(t.K8S_SERVICE)}


def policy_settings(graph: ReferenceGraph, policy_type: str, kind: str, setting: str) -> dict[tuple[str, str], str]:
    """(namespace, target name) -> `spec.default.<setting>` of the GKE policies of `policy_type` targeting a
    `kind` object (policies apply in their own namespace)."""
    found: dict[tuple[str, str], str] = {}
    for policy in graph.of_type(policy_type):
        if as_str(policy.get("spec", "targetRef", "kind")) != kind:
            continue
        value = as_str(policy.get("spec", "default", setting))
        key = (namespace(policy), as_str(policy.get("spec", "targetRef", "name")))
        if value or key not in found:
            found[key] = value
    return found
