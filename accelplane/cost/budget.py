"""The budget a plan declares, read back from the cloud budget resource the program creates, and the
verdict of an estimate against it (AP-COST-001, `accelplane cost`).

AWS: `aws:budgets/budget:Budget` (`limitAmount` in USD; tags say the pool size it is judged at and
the warning fraction). Google Cloud: `gcp:billing/budget:Budget` (`amount.specifiedAmount`; the
first threshold rule is the warning fraction; the display name ends with the size it is judged at,
as a Cloud Billing budget carries no labels).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: `check --state` reads budgets without loading the pricing models
    from accelplane.cost.estimate import Estimate

BUDGET_JUDGED_AT_TAG = "accelplane.io/budget-judged-at"
BUDGET_WARN_AT_TAG = "accelplane.io/budget-warn-at"
AWS_BUDGET = "aws:budgets/budget:Budget"
GCP_BUDGET = "gcp:billing/budget:Budget"
BUDGET_TYPES = frozenset({AWS_BUDGET, GCP_BUDGET})
_JUDGED_SUFFIX = re.compile(r"\(judged at (maximum|desired)\)$")


def gcp_display_name(platform: str, judged_at: str) -> str:
    return f"{platform} monthly (judged at {judged_at})"


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
    unpriced: int  # lines without a price (the cost is a lower bound)

    @property
    def fraction(self) -> float:
        return self.cost / self.budget.monthly_usd

    @property
    def over(self) -> bool:
        return self.cost > self.budget.monthly_usd

    @property
    def warned(self) -> bool:
        return not self.over and self.fraction >= self.budget.warn_at

    def message(self) -> str:
        b = self.budget
        text = (f"at {b.judged_at} pool sizes the stack costs ${self.cost:,.2f} a month, "
                f"{self.fraction:.0%} of its ${b.monthly_usd:,.2f} budget")
        if self.unpriced:
            text += f" ({self.unpriced} line(s) have no price: the cost is at least this)"
        return text


def _float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def read_budget(type_token: str, name: str, inputs: Mapping[str, Any]) -> DeclaredBudget | None:
    if type_token == AWS_BUDGET:
        amount = _float(inputs.get("limitAmount"))
        if amount is None or str(inputs.get("limitUnit", "USD")) != "USD":
            return None
        found_tags = inputs.get("tags")
        tags: Mapping[str, Any] = found_tags if isinstance(found_tags, Mapping) else {}
        warn = _float(tags.get(BUDGET_WARN_AT_TAG)) or 0.8
        return DeclaredBudget(name, amount, str(tags.get(BUDGET_JUDGED_AT_TAG) or "maximum"), warn)
    if type_token == GCP_BUDGET:
        specified = (inputs.get("amount") or {}).get("specifiedAmount") or {}
        amount = _float(specified.get("units"))
        if amount is None or specified.get("currencyCode", "USD") != "USD":
            return None
        rules = inputs.get("thresholdRules") or []
        warn = _float(rules[0].get("thresholdPercent")) if rules and isinstance(rules[0], Mapping) else None
        found = _JUDGED_SUFFIX.search(str(inputs.get("displayName") or ""))
        return DeclaredBudget(name, amount, found.group(1) if found else "maximum", warn or 0.8)
    return None


def budgets_in(resources: Iterable[Mapping[str, Any]]) -> list[DeclaredBudget]:
    found = []
    for resource in resources:
        inputs = resource.get("inputs")
        if resource.get("type") in BUDGET_TYPES and isinstance(inputs, Mapping):
            name = str(resource.get("urn", "")).rsplit("::", 1)[-1]
            budget = read_budget(str(resource["type"]), name, inputs)
            if budget is not None:
                found.append(budget)
    return found


def judge(estimate: Estimate, budget: DeclaredBudget) -> BudgetVerdict:
    return BudgetVerdict(budget, estimate.at(budget.judged_at), len(estimate.unpriced()))
