"""AP-GLB-014: an HTTPRoute rule that retries bounds each try.

A `retry` without `timeouts.backendRequest` retries a slow backend until the whole request's timeout
runs out: every retry piles more load on the replica that is already too slow (a retry storm). The
Gateway API's `retry` is experimental (absent from the standard channel GKE ships); this judges a plan
that uses it anyway.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp.rules.load_balancer.gke_gateway import namespace, object_name
from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for index, rule in enumerate(as_list(resource.get("spec", "rules"))):
        if get(rule, "retry") is not None and not as_str(get(rule, "timeouts", "backendRequest")):
            yield f"HTTPRoute {namespace(resource)}/{object_name(resource)} rule {index} retries without a per-try " \
                  "timeout (timeouts.backendRequest): a slow backend is retried until the request times out"


RULE = Rule(
    id="AP-GLB-014",
    name="gke-route-retry-per-try-timeout",
    description="Checks whether an HTTPRoute rule with a retry policy also bounds each try (timeouts.backendRequest).",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set timeouts.backendRequest on every rule that retries, shorter than timeouts.request.",
    resource_types=frozenset({t.K8S_HTTP_ROUTE}),
    check=check,
    categories=("availability",),
    references=("https://gateway-api.sigs.k8s.io/geps/gep-1731/",),
)
