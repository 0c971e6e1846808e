"""AP-GLB-004: an external backend service has a Cloud Armor security policy attached.

`loadBalancingScheme` EXTERNAL (the default) or EXTERNAL_MANAGED puts the backend behind an
internet-facing load balancer; without `securityPolicy` any client reaches it. (A Gateway's backend
services are GKE's: AP-GLB-003 judges those through GCPBackendPolicy objects.)
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str

EXTERNAL_SCHEMES = frozenset({"EXTERNAL", "EXTERNAL_MANAGED"})


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    scheme = as_str(resource.get("loadBalancingScheme")) or "EXTERNAL"
    if scheme in EXTERNAL_SCHEMES and not as_str(resource.get("securityPolicy")):
        yield f"{scheme} backend service without a Cloud Armor securityPolicy: every client reaches it"


RULE = Rule(
    id="AP-GLB-004",
    name="gcp-backend-service-cloud-armor",
    description="Checks whether an external backend service sets a Cloud Armor securityPolicy.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set security_policy to the endpoint's Cloud Armor policy.",
    resource_types=frozenset({t.GCP_BACKEND_SERVICE}),
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/armor/docs/configure-security-policies",),
)
