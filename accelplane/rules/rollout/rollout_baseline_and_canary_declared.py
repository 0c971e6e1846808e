"""AP-RO-003: a service's rollout names a baseline and a canary that are among its backends.

The baseline is what the rollout returns to on a rollback or an abort, and what the canary's
latency is judged against: removing it from the backends while the canary does not yet take all
requests leaves the rollout nothing to fall back to. Once one backend carries 100, the finished
rollout may retire the old baseline. A rollout without a declared canary has nowhere to move weight.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rollout.services import backends, rollout
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    policy = rollout(resource)
    if policy is None:
        return
    declared = backends(resource)
    names = {backend.name for backend in declared}
    listed = ", ".join(sorted(names)) or "none"
    complete = any(backend.weight == 100 for backend in declared)
    if not policy.baseline:
        yield "the rollout names no baseline"
    elif policy.baseline not in names and not complete:
        yield (f"the rollout's baseline {policy.baseline} is not among the backends ({listed}) while no backend "
               "takes 100%: a rollback or abort has nothing to return to")
    if not policy.canary:
        yield f"the rollout names no canary (backends: {listed}): set rollout.canary"
    elif policy.canary not in names:
        yield f"the rollout's canary {policy.canary} is not among the backends ({listed})"
    elif policy.canary == policy.baseline:
        yield f"the rollout's canary and baseline are the same backend ({policy.canary})"


RULE = Rule(
    id="AP-RO-003",
    name="rollout-baseline-and-canary-declared",
    description="Checks whether an inference service's rollout names a canary and a baseline among its backends, "
    "and keeps the baseline until one backend takes all requests.",
    family=Family.rollout,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Keep the baseline backend (at weight 0 if need be) until the canary takes 100, and name the "
    "canary (rollout.canary) among the backends.",
    resource_types=frozenset({t.INFERENCE_SERVICE}),
    check=check,
    categories=("rollout", "availability"),
)
