"""AP-GLB-010: every backend of an internet-facing GKE Gateway in prod is rate-limited by Cloud Armor.

The Cloud Armor policy a backend's GCPBackendPolicy names must hold a `throttle` or `rate_based_ban`
rule (the twin of AP-LB-010 on AWS); a preview-only rule is AP-GLB-011's. The finding is the
unprotected Service's when the graph holds it: the fix is that service's `rate_limit`, not the
endpoint the Gateway is built from.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp.rules.load_balancer.armor import armor_rate_rules, backend_armor
from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import backend_services, is_external, service_objects
from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import About, Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str | About]:
    if graph.environment != "prod" or not is_external(resource):
        return
    armour = graph.memo("gke-backend-armor", backend_armor)
    services = graph.memo("k8s-services", service_objects)
    for where, name in backend_services(graph, resource):
        policy = armour.get((where, name))
        if policy is None or not armor_rate_rules(policy):
            message = f"backend Service {where}/{name} of Gateway {resource.name} in prod has no Cloud Armor " \
                      "rate limit (throttle or rate_based_ban): one client can exhaust the model's capacity"
            service = services.get((where, name))
            yield About(service, message) if service is not None else message


RULE = Rule(
    id="AP-GLB-010",
    name="gke-gateway-rate-limit",
    description="Checks whether every Service behind an internet-facing GKE Gateway in prod has a Cloud Armor "
    "policy with a throttle or rate_based_ban rule.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare rate_limit on each exposed inference service; accelplane gives the service a Cloud Armor "
    "policy that throttles each client.",
    resource_types=frozenset({t.K8S_GATEWAY}),
    check=check,
    scope=Scope.stack,
    categories=("network-exposure", "availability"),
    references=("https://cloud.google.com/armor/docs/rate-limiting-overview",),
    fix_field="rate_limit",
)
