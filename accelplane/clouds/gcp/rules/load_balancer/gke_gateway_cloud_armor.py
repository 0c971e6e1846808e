"""AP-GLB-003: every backend of an internet-facing GKE Gateway has a Cloud Armor policy.

For a Gateway of an external GKE GatewayClass, each Service its HTTPRoutes send traffic to must be
the target of a `GCPBackendPolicy` whose `spec.default.securityPolicy` names a Cloud Armor policy:
that is how GKE attaches Cloud Armor to the backend services it creates. (The policy itself is
judged by AP-GLB-002.) Twin of the AWS layer's security group on the load balancer (AP-NET-001).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import backend_services, is_external, policy_settings
from accelplane.rules import types as neutral
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if not is_external(resource):
        return
    armour = policy_settings(graph, t.GKE_BACKEND_POLICY, "Service", "securityPolicy")
    for where, name in backend_services(graph, resource):
        if not armour.get((where, name)):
            yield f"backend Service {where}/{name} has no GCPBackendPolicy with a Cloud Armor securityPolicy: " \
                  "every client on the internet reaches it"


RULE = Rule(
    id="AP-GLB-003",
    name="gke-gateway-cloud-armor",
    description="Checks whether every Service behind an internet-facing GKE Gateway is targeted by a "
    "GCPBackendPolicy naming a Cloud Armor security policy.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Create a GCPBackendPolicy targeting the Service with spec.default.securityPolicy set to the "
    "endpoint's Cloud Armor policy.",
    resource_types=frozenset({neutral.K8S_GATEWAY}),
    check=check,
    scope=Scope.stack,
    categories=("network-exposure",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources"
                "#configure_cloud_armor",),
)
