"""How a Cloud Billing budget carries the declared budget: `amount.specifiedAmount` in USD; the first
threshold rule is the warning fraction; the display name ends with the pool size it is judged at, as a
Cloud Billing budget carries no labels. `BUDGET` is this cloud's `accelplane.budgets` entry point."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from accelplane.cost.budget import DEFAULT_WARN_AT, CloudBudget, DeclaredBudget, as_float

BUDGET_TYPE = "gcp:billing/budget:Budget"
_JUDGED_SUFFIX = re.compile(r"\(judged at (maximum|desired)\)$")


def display_name(platform: str, judged_at: str) -> str:
    return f"{platform} monthly (judged at {judged_at})"


def read(name: str, inputs: Mapping[str, Any]) -> DeclaredBudget | None:
    specified = (inputs.get("amount") or {}).get("specifiedAmount") or {}
    amount = as_float(specified.get("units"))
    if amount is None or specified.get("currencyCode", "USD") != "USD":
        return None
    rules = inputs.get("thresholdRules") or []
    warn = as_float(rules[0].get("thresholdPercent")) if rules and isinstance(rules[0], Mapping) else None
    found = _JUDGED_SUFFIX.search(str(inputs.get("displayName") or ""))
    return DeclaredBudget(name, amount, found.group(1) if found else "maximum", warn or DEFAULT_WARN_AT)


BUDGET = CloudBudget(cloud="gcp", type=BUDGET_TYPE, read=read)
