"""tinycloud's prices: the `accelplane.pricing` entry point (`PRICING`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accelplane.cost.cloud_pricing import CloudPricing
from accelplane.cost.plan_pricer import LineItem, PlanPricer, resource_inputs, resource_name
from accelplane_tinycloud import POOL_TYPE


class TinyPricer(PlanPricer):
    def items(self) -> Iterable[LineItem]:
        for pool in self.each(POOL_TYPE):
            inputs = resource_inputs(pool)
            nodes = (int(inputs["min"]), int(inputs["desired"]), int(inputs["max"]))
            machine = str(inputs["machineType"])
            part, _ = self.machine_part(machine, nodes, spot=False)
            yield LineItem(resource_name(pool), POOL_TYPE, "node pool", (part,), pool=str(inputs["pool"]),
                           machine=machine, nodes=nodes, pricing="on-demand")


def plan_region(resources: Iterable[Mapping[str, Any]]) -> str | None:
    return next((str(resource_inputs(r)["region"]) for r in resources if r.get("type") == POOL_TYPE), None)


PRICING = CloudPricing(pricer=TinyPricer, table=Path(__file__).with_name("prices.yaml"), plan_region=plan_region)
