"""AP-GLB-005: an internet-facing GKE Gateway with an HTTPS listener has an SSL policy.

Without a `GCPGatewayPolicy` naming an SSL policy (`spec.default.sslPolicy`), GKE's load balancer uses
Google's default policy: TLS 1.0 and the COMPATIBLE profile. (The SSL policy itself is judged by
AP-GLB-001.) Twin of AP-LB-001's listener check.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import is_external, namespace, object_name, policy_settings
from accelplane.rules import types as neutral
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not is_external(resource):
        return
    https = [as_str(get(listener, "name")) for listener in as_list(resource.get("spec", "listeners"))
             if as_str(get(listener, "protocol")).upper() == "HTTPS"]
    if not https:
        return
    policies = policy_settings(graph, t.GKE_GATEWAY_POLICY, "Gateway", "sslPolicy")
    if not policies.get((namespace(resource), object_name(resource))):
        yield f"HTTPS listener {', '.join(https)} without a GCPGatewayPolicy sslPolicy: Google's default policy " \
              "accepts TLS 1.0"


RULE = Rule(
    id="AP-GLB-005",
    name="gke-gateway-ssl-policy",
    description="Checks whether an internet-facing GKE Gateway with an HTTPS listener is targeted by a "
    "GCPGatewayPolicy naming an SSL policy.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Create a GCPGatewayPolicy targeting the Gateway with spec.default.sslPolicy set to a TLS 1.2+ "
    "SSL policy.",
    resource_types=frozenset({neutral.K8S_GATEWAY}),
    check=check,
    scope=Scope.stack,
    categories=("encryption-in-transit",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources"
                "#configure_ssl_policies",),
)
