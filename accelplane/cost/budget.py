"""The budget a plan declares, read back from the cloud budget resource the program creates, and the
verdict of an estimate against it (AP-COST-001, `accelplane cost`).

Each cloud reads its own budget resource (`CloudBudget`, an optional facet offered as an
`accelplane.budgets` entry point: `<cloud> = <module>:<CloudBudget>`); the facet module is light, as
`check --state` reads budgets without loading the pricing models.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from accelplane.cloud_support import installed_facets

if TYPE_CHECKING:  # annotations only: `check --state` reads budgets without loading the pricing models
    from accelplane.cost.estimate import Estimate

BUDGET_JUDGED_AT_TAG = "accelplane.io/budget-judged-at"
BUDGET_WARN_AT_TAG = "accelplane.io/budget-warn-at"
DEFAULT_WARN_AT = 0.8
ENTRY_POINT_GROUP = "accelplane.budgets"


@dataclass(frozen=True)
class DeclaredBudget:
    resource: str
    monthly_usd: float
    judged_at: str  # maximum | desired
    warn_at: float


@dataclass(frozen=True)
class BudgetVerdict:
    budget: DeclaredBudget
    cost: float
    unpriced_resources: tuple[str, ...]  # resources without a price (the cost is a lower bound)

    @property
    def unpriced(self) -> int:
        return len(self.unpriced_resources)

    @property
    def fraction(self) -> float:
        return self.cost / self.budget.monthly_usd

    @property
    def over(self) -> bool:
        return self.cost > self.budget.monthly_usd

    @property
    def cannot_judge(self) -> bool:
        """Lines without a price and the priced ones within the budget: the stack may well be over it.
        (Priced lines already over the budget are over, whatever the others cost.)"""
        return self.unpriced > 0 and not self.over

    @property
    def warned(self) -> bool:
        return not self.over and not self.cannot_judge and self.fraction >= self.budget.warn_at

    def message(self) -> str:
        b = self.budget
        if self.cannot_judge:
            return (f"cannot judge the ${b.monthly_usd:,.2f} budget: {self.unpriced} line(s) have no price; the "
                    f"priced lines cost at least ${self.cost:,.2f} a month at {b.judged_at} pool sizes "
                    f"({self.fraction:.0%} of it)")
        text = (f"at {b.judged_at} pool sizes the stack costs ${self.cost:,.2f} a month, "
                f"{self.fraction:.0%} of its ${b.monthly_usd:,.2f} budget")
        if self.unpriced:
            text += f" ({self.unpriced} line(s) have no price: the cost is at least this)"
        return text


def as_float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class CloudBudget:
    """How one cloud's budget resource carries a declared budget."""

    cloud: str
    type: str  # the budget resource's Pulumi type token
    # (logical name, the resource's inputs) -> the budget; None where it is not one in USD
    read: Callable[[str, Mapping[str, Any]], DeclaredBudget | None]


@cache
def cloud_budgets() -> Mapping[str, CloudBudget]:
    """Every installed cloud's budget facet, by the budget resource's type token."""
    return {facet.type: facet for facet in installed_facets(ENTRY_POINT_GROUP, CloudBudget)}


def budget_types() -> frozenset[str]:
    return frozenset(cloud_budgets())


def read_budget(type_token: str, name: str, inputs: Mapping[str, Any]) -> DeclaredBudget | None:
    facet = cloud_budgets().get(type_token)
    return facet.read(name, inputs) if facet else None


def budgets_in(resources: Iterable[Mapping[str, Any]]) -> list[DeclaredBudget]:
    found = []
    for resource in resources:
        inputs = resource.get("inputs")
        if resource.get("type") in cloud_budgets() and isinstance(inputs, Mapping):
            name = str(resource.get("urn", "")).rsplit("::", 1)[-1]
            budget = read_budget(str(resource["type"]), name, inputs)
            if budget is not None:
                found.append(budget)
    return found


def judge(estimate: Estimate, budget: DeclaredBudget) -> BudgetVerdict:
    return BudgetVerdict(budget, estimate.at(budget.judged_at), tuple(item.resource for item in estimate.unpriced()))
