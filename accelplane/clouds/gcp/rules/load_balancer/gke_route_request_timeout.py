"""AP-GLB-012: an HTTPRoute behind an internet-facing Gateway bounds its requests in time.

A route rule without `timeouts.request` leaves a request to the load balancer's backend-service
timeout alone, which the GCPBackendPolicy's `timeoutSec` sets; with neither, nobody chose how long a
client waits for a stuck model server.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import is_external, namespace, object_name, routes
from accelplane.rules import types as neutral
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not is_external(resource):
        return
    backend_timeouts = {
        (namespace(policy), as_str(policy.get("spec", "targetRef", "name"))):
            policy.get("spec", "default", "timeoutSec")
        for policy in graph.of_type(t.GKE_BACKEND_POLICY)
        if as_str(policy.get("spec", "targetRef", "kind")) == "Service"
    }
    for route in routes(graph, resource):
        for index, rule in enumerate(as_list(route.get("spec", "rules"))):
            if as_str(get(rule, "timeouts", "request")):
                continue
            services = [(as_str(get(ref, "namespace")) or namespace(route), as_str(get(ref, "name")))
                        for ref in as_list(get(rule, "backendRefs"))]
            if not services or all(backend_timeouts.get(s) for s in services):
                continue  # a redirect (no backends) waits on nobody
            yield f"HTTPRoute {namespace(route)}/{object_name(route)} rule {index} declares no request timeout " \
                  "(timeouts.request) and its backends no GCPBackendPolicy timeoutSec"


RULE = Rule(
    id="AP-GLB-012",
    name="gke-route-request-timeout",
    description="Checks whether every HTTPRoute rule behind an internet-facing GKE Gateway declares a request "
    "timeout, or its backends a GCPBackendPolicy timeoutSec.",
    family=Family.load_balancer,
    severity=Severity.low,
    enforcement=Enforcement.advisory,
    remediation="Declare the service's timeouts (request_seconds, backend_request_seconds); prod's default is 120 s.",
    resource_types=frozenset({neutral.K8S_GATEWAY}),
    check=check,
    scope=Scope.stack,
    categories=("availability",),
    references=("https://gateway-api.sigs.k8s.io/reference/spec/#httproutetimeouts",),
)
