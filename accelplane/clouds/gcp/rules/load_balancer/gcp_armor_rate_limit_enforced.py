"""AP-GLB-011: in prod, Cloud Armor rate limits are enforced, not previewed.

A `preview` rule logs what it would do and lets every request through: right while a limit is sized
outside prod, a limit that does nothing in prod. The finding is each Service whose GCPBackendPolicy
names the policy when the graph holds them: the fix is that service's `rate_limit.mode`.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.load_balancer.armor import armor_rate_rules, backend_armor
from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import service_objects
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import About, Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_bool, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str | About]:
    if graph.environment != "prod":
        return
    armour = graph.memo("gke-backend-armor", backend_armor)
    services = graph.memo("k8s-services", service_objects)
    protected = [services[key] for key, policy in armour.items()
                 if policy is not None and policy.urn == resource.urn and key in services]
    for rule in armor_rate_rules(resource):
        if as_bool(get(rule, "preview")) is True:
            message = f"{as_str(get(rule, 'action'))} rule at priority {get(rule, 'priority')} is preview-only in " \
                      "prod: clients over the limit are let through"
            if not protected:
                yield message
            for service in protected:
                yield About(service, f"{message} (Cloud Armor policy {resource.name})")


RULE = Rule(
    id="AP-GLB-011",
    name="gcp-armor-rate-limit-enforced",
    description="Checks whether a prod Cloud Armor policy's rate-limiting rules are enforced rather than preview.",
    family=Family.load_balancer,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Set the service's rate_limit.mode to enforce (count is for sizing a limit outside prod).",
    resource_types=frozenset({t.GCP_SECURITY_POLICY}),
    check=check,
    scope=Scope.stack,  # the finding is the service's resources, read from the whole graph
    categories=("availability",),
    fix_field="rate_limit",
)
