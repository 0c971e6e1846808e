"""How an AWS Budgets budget carries the declared budget: `limitAmount` in USD; tags say the pool size
it is judged at and the warning fraction. `BUDGET` is this cloud's `accelplane.budgets` entry point."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.cost.budget import (
    BUDGET_JUDGED_AT_TAG,
    BUDGET_WARN_AT_TAG,
    DEFAULT_WARN_AT,
    CloudBudget,
    DeclaredBudget,
    as_float,
)

BUDGET_TYPE = "aws:budgets/budget:Budget"


def read(name: str, inputs: Mapping[str, Any]) -> DeclaredBudget | None:
    amount = as_float(inputs.get("limitAmount"))
    if amount is None or str(inputs.get("limitUnit", "USD")) != "USD":
        return None
    found_tags = inputs.get("tags")
    tags: Mapping[str, Any] = found_tags if isinstance(found_tags, Mapping) else {}
    warn = as_float(tags.get(BUDGET_WARN_AT_TAG)) or DEFAULT_WARN_AT
    return DeclaredBudget(name, amount, str(tags.get(BUDGET_JUDGED_AT_TAG) or "maximum"), warn)


BUDGET = CloudBudget(cloud="aws", type=BUDGET_TYPE, read=read)
