"""AP-GLB-020: every backend of an internet-facing GKE Gateway in prod authenticates clients with
Identity-Aware Proxy.

Cloud Armor's allow-list (AP-GLB-003) admits source ranges, not identities. GKE's Gateway turns IAP
on for a backend service through the `GCPBackendPolicy` targeting its Service: `spec.default.iap`
enabled with the OAuth client's id and the Secret holding its secret
(https://cloud.google.com/iap/docs/enabling-gke-howto). Twin of AWS's AP-LB-020. Judged in prod;
waive with a reason where an endpoint is public by design.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import backend_services, is_external, namespace
from accelplane.rules import types as neutral
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_bool, as_str


def _protected(graph: ReferenceGraph) -> set[tuple[str, str]]:
    """(namespace, Service) targeted by a GCPBackendPolicy turning IAP on with an OAuth client."""
    found = set()
    for policy in graph.of_type(t.GKE_BACKEND_POLICY):
        if as_str(policy.get("spec", "targetRef", "kind")) != "Service":
            continue
        if (as_bool(policy.get("spec", "default", "iap", "enabled")) is True
                and as_str(policy.get("spec", "default", "iap", "clientID"))
                and as_str(policy.get("spec", "default", "iap", "oauth2ClientSecret", "name"))):
            found.add((namespace(policy), as_str(policy.get("spec", "targetRef", "name"))))
    return found


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment != "prod" or not is_external(resource):
        return
    protected = _protected(graph)
    for where, name in backend_services(graph, resource):
        if (where, name) not in protected:
            yield (f"backend Service {where}/{name} serves clients in prod without authenticating them: no "
                   "GCPBackendPolicy turns Identity-Aware Proxy on for it")


RULE = Rule(
    id="AP-GLB-020",
    name="gke-gateway-iap",
    description="Checks whether every Service behind an internet-facing GKE Gateway in prod is targeted by a "
    "GCPBackendPolicy enabling Identity-Aware Proxy with an OAuth client.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare inference_endpoint.client_auth.id_tokens (audience: the IAP OAuth client id, callers, "
    "oauth_client_secret), or waive with the reason the endpoint is public.",
    resource_types=frozenset({neutral.K8S_GATEWAY}),
    check=check,
    scope=Scope.stack,
    categories=("authentication", "network-exposure"),
    references=("https://cloud.google.com/iap/docs/enabling-gke-howto",),
    fix_field="client_auth",
    reads=frozenset({t.GKE_BACKEND_POLICY, neutral.K8S_HTTP_ROUTE}),
)
