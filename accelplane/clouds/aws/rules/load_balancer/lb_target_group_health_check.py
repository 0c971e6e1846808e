"""AP-LB-012: an HTTP target group's health check names its path and the codes counted healthy.

Without a path the ALB probes `/`, which a model server may not serve (every target unhealthy, or
healthy while the model is still loading); without a matcher any 200 from a proxy in front passes.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if (as_str(resource.get("protocol")) or "HTTP") not in ("HTTP", "HTTPS"):
        return
    if as_str(resource.get("targetType")) == "lambda":
        return
    if as_bool(resource.get("healthCheck", "enabled")) is False:
        yield "health check disabled: targets are never taken out of service"
        return
    missing = [key for key in ("path", "matcher") if not as_str(resource.get("healthCheck", key))]
    if missing:
        yield f"health check without an explicit {' and '.join(missing)}"


RULE = Rule(
    id="AP-LB-012",
    name="lb-target-group-health-check",
    description="Checks whether an HTTP target group's health check is enabled with an explicit path and "
    "status-code matcher.",
    family=Family.load_balancer,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Declare the service's health_check path and matcher (the endpoint's health_check is the default).",
    resource_types=t.TARGET_GROUPS,
    check=check,
    categories=("availability",),
)
