"""AP-RO-002: a backend that takes a share of the requests keeps at least one replica.

`min_replicas: 0` lets an idle canary or a retired baseline hold no accelerators, but the load
balancer (ALB weighted target groups, Gateway weighted backendRefs) keeps sending the backend its
weight: with no pods, that share of the requests fails (503) until something scales it up, and
nothing does, since a Deployment at zero gets no HPA.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rollout.services import backends
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for backend in backends(resource):
        if (backend.weight or 0) > 0 and (backend.min_replicas is None or backend.min_replicas < 1):
            floor = backend.min_replicas if backend.min_replicas is not None else "unset"
            yield (f"backend {backend.name} takes {backend.weight}% of the requests with min_replicas {floor}: "
                   "its share goes to no pods")


RULE = Rule(
    id="AP-RO-002",
    name="rollout-weighted-backend-has-replicas",
    description="Checks whether every inference backend with a weight above 0 keeps at least one replica.",
    family=Family.rollout,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set the backend's autoscaling.min_replicas to 1 or more, or its weight to 0 (`accelplane rollout "
    "abort` or `rollback` moves its share back to the baseline).",
    resource_types=frozenset({t.INFERENCE_SERVICE}),
    check=check,
    categories=("rollout", "availability"),
)
