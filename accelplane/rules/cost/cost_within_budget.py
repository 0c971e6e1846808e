"""AP-COST-001: the stack's monthly cost at the size its budget is judged at stays within the budget.

The budget is the cloud budget resource the program creates from `budget:` (accelplane.cost.budget);
the cost is the plan's estimate at list prices with declared discounts (accelplane.cost.estimate), at
every pool's maximum size (default) or desired size. Lines without a price are left out of the sum,
so the figure is a lower bound: past the budget it fails as it is; within it, the rule cannot judge
and says so, failing too (an unpriced p5.4xlarge pool once passed a budget it may exceed).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cost.budget import BudgetVerdict, budget_types, cloud_budgets, judge, read_budget
from accelplane.rules.cost.plan_estimate import graph_estimate
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def verdict(resource: Resource, graph: ReferenceGraph) -> BudgetVerdict | None:
    budget = read_budget(resource.type, resource.name, resource.props)
    estimate = graph_estimate(graph, cloud_budgets()[resource.type].cloud)
    if budget is None or estimate is None:
        return None
    return judge(estimate, budget)


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    found = verdict(resource, graph)
    if found is None:
        return
    if found.over:
        yield f"{found.message()}: over by ${found.cost - found.budget.monthly_usd:,.2f}"
    elif found.cannot_judge:
        yield f"{found.message()}: no price for {', '.join(found.unpriced_resources)} (`accelplane cost` names why)"


RULE = Rule(
    id="AP-COST-001",
    name="cost-within-budget",
    description="Checks whether the stack's monthly cost at the pool sizes its budget is judged at (maximum by "
    "default) stays within the declared budget.",
    family=Family.cost,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Lower the pools' maximum sizes, move a pool to spot or a discounted commitment, or raise "
    "budget.monthly_usd (`accelplane cost --stack NAME` shows each line). A line without a price (a machine type "
    "the price table lacks) is priced with `accelplane prices refresh` or moved to a priced type.",
    resource_types=budget_types(),
    check=check,
    scope=Scope.stack,
    categories=("cost",),
    references=("https://aws.amazon.com/aws-cost-management/aws-budgets/",
                "https://cloud.google.com/billing/docs/how-to/budgets"),
)
