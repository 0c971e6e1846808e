"""AP-GLB-013: every backend of an internet-facing GKE Gateway has a health check on an explicit path.

Without a HealthCheckPolicy whose `httpHealthCheck.requestPath` names the server's health path, GKE
derives the probe from the pods' readiness probe or probes `/`: a model server answering only its
health path is marked unhealthy, or healthy while still loading. (Google's probes pass on 200 only;
`response` can also match the body.)
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import backend_services, is_external, namespace
from accelplane.rules import types as neutral
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str


def _paths(graph: ReferenceGraph) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for policy in graph.of_type(t.GKE_HEALTH_CHECK_POLICY):
        if as_str(policy.get("spec", "targetRef", "kind")) != "Service":
            continue
        key = (namespace(policy), as_str(policy.get("spec", "targetRef", "name")))
        config = policy.get("spec", "default", "config")
        path = ""
        if isinstance(config, dict):
            for kind in ("httpHealthCheck", "httpsHealthCheck", "http2HealthCheck"):
                path = path or as_str(policy.get("spec", "default", "config", kind, "requestPath"))
        found[key] = found.get(key) or path
    return found


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not is_external(resource):
        return
    paths = graph.memo("gke-health-check-paths", _paths)
    for where, name in backend_services(graph, resource):
        if (where, name) not in paths:
            yield f"backend Service {where}/{name} has no HealthCheckPolicy: GKE chooses the probe"
        elif not paths[(where, name)]:
            yield f"backend Service {where}/{name}'s HealthCheckPolicy names no requestPath"


RULE = Rule(
    id="AP-GLB-013",
    name="gke-gateway-health-check",
    description="Checks whether every Service behind an internet-facing GKE Gateway is targeted by a "
    "HealthCheckPolicy with an explicit request path.",
    family=Family.load_balancer,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Declare the service's health_check path (the endpoint's health_check is the default).",
    resource_types=frozenset({neutral.K8S_GATEWAY}),
    check=check,
    scope=Scope.stack,
    categories=("availability",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources"
                "#configure_health_check",),
)
