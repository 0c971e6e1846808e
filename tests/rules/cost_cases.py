"""AP-COST-001/002/003 fixtures: a budget resource beside a priced node group (g6e.2xlarge in
us-west-2 at $2.24208 an hour, 730 hours a month: two nodes at maximum cost $3,273.44), and
development pools with and without an owner and expiry."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as t
from tests.rules.cases import TAGS, Case, res

TWO_NODES_AT_MAXIMUM = 2 * 2.24208 * 730  # 3273.4368


def _subnet() -> Any:
    return res(t.SUBNET, "private-0", {"availabilityZone": "us-west-2a", "vpcId": "vpc-1", "tags": TAGS})


def _pool(name: str = "serve", *, accelerator: str = "none", minimum: int = 0, labels: dict[str, str] | None = None,
          ) -> Any:
    return res(t.EKS_NODE_GROUP, f"{name}-ng", {
        "nodeGroupName": name, "instanceTypes": ["g6e.2xlarge"], "capacityType": "ON_DEMAND",
        "scalingConfig": {"minSize": minimum, "desiredSize": 1, "maxSize": 2},
        "labels": {"accelplane.io/pool": name, "accelplane.io/accelerator": accelerator, **(labels or {})},
        "tags": TAGS})


def _budget(amount: float, judged_at: str = "maximum", warn_at: str = "0.8") -> Any:
    return res("aws:budgets/budget:Budget", "acme-budget", {
        "budgetType": "COST", "limitAmount": f"{amount:.2f}", "limitUnit": "USD", "timeUnit": "MONTHLY",
        "tags": {**TAGS, "accelplane.io/budget-judged-at": judged_at, "accelplane.io/budget-warn-at": warn_at}})


OWNED = {"accelplane.io/owner": "research", "accelplane.io/expires": "2099-12-31"}

COST_CASES: dict[str, Case] = {
    "AP-COST-001": Case(
        passing=[_subnet(), _pool(), _budget(5000)],
        failing=[_subnet(), _pool(), _budget(3000)],
        expect="at maximum pool sizes the stack costs $3,273.44 a month, 109% of its $3,000.00 budget: over by "
        "$273.44",
        target="acme-budget",
    ),
    "AP-COST-002": Case(
        passing=[_subnet(), _pool(), _budget(5000)],  # 65 %
        failing=[_subnet(), _pool(), _budget(3500)],  # 94 %
        expect="costs $3,273.44 a month, 94% of its $3,500.00 budget: at or above the warning fraction 80%",
        target="acme-budget",
    ),
    "AP-COST-003": Case(
        passing=[_pool("experiment", accelerator="nvidia-l40s", labels=OWNED)],
        failing=[_pool("experiment", accelerator="nvidia-l40s",
                       labels={"accelplane.io/owner": "research", "accelplane.io/expires": "2020-01-31"})],
        expect="pool experiment expired on 2020-01-31",
        target="experiment-ng",
        environment="dev",
    ),
}
