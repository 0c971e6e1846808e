"""AP-LB-003: application load balancers drop invalid HTTP header fields (request smuggling)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if (as_str(resource.get("loadBalancerType")) or "application") != "application":
        return
    if as_bool(resource.get("dropInvalidHeaderFields")) is not True:
        yield "dropInvalidHeaderFields is off"


RULE = Rule(
    id="AP-LB-003",
    name="lb-drop-invalid-headers",
    description="Checks whether an application load balancer drops invalid header fields.",
    family=Family.load_balancer,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Set drop_invalid_header_fields=True.",
    resource_types=t.LOAD_BALANCERS,
    check=check,
    categories=("web",),
)
