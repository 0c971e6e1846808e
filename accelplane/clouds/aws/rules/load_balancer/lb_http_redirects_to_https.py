"""AP-LB-002: plain HTTP listeners only redirect to HTTPS."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.load_balancer.listeners import protocol, redirect_problems
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if protocol(resource) == "HTTP":
        yield from redirect_problems(resource)


RULE = Rule(
    id="AP-LB-002",
    name="lb-http-redirects-to-https",
    description="Checks whether every HTTP listener's default action is a redirect to HTTPS.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Make the port-80 listener a redirect {protocol: HTTPS, port: 443, status_code: HTTP_301}.",
    resource_types=t.LISTENERS,
    check=check,
    categories=("encryption-in-transit",),
)
