"""AP-COST-002: the stack's monthly cost has reached the budget's warning fraction (`warn_at`) without
exceeding it (advisory; AP-COST-001 fails past the budget)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cost.budget import budget_types
from accelplane.rules.cost.cost_within_budget import verdict
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    found = verdict(resource, graph)
    if found is not None and found.warned:
        yield f"{found.message()}: at or above the warning fraction {found.budget.warn_at:.0%}"


RULE = Rule(
    id="AP-COST-002",
    name="cost-near-budget",
    description="Checks whether the stack's monthly cost stays below the budget's warning fraction (warn_at).",
    family=Family.cost,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Review the largest lines of `accelplane cost --stack NAME` before the budget is reached.",
    resource_types=budget_types(),
    check=check,
    scope=Scope.stack,
    categories=("cost",),
)
