"""AP-CAP-001 fixtures: a Capacity Block purchase as the program declares it (its terms in tags), beside a
budget and the subnet the estimate reads the region from. The fee, $3,020.54, is two p5.48xlarge for 48
hours at $31.464 an hour (2 * 48 * 31.464), an offering's whole price."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as t
from tests.rules.cases import TAGS, Case, res
from tests.rules.cost_cases import _budget, _subnet

APPROVED = {"accelplane:capacity-approved-by": "head-of-ml@acme.example",
            "accelplane:capacity-approved-on": "2026-12-01"}


def _block(*, upfront: str = "3020.54", cap: str = "3200.00", approval: dict[str, str] | None = None) -> Any:
    return res(t.CAPACITY_BLOCK, "burst-block", {
        "capacityBlockOfferingId": "cb-0e4b2c9d8a7f61352", "instancePlatform": "Linux/UNIX",
        "tags": {**TAGS, "accelplane.io/pool": "train-h100", "accelplane:capacity-offering": "cb-0e4b2c9d8a7f61352",
                 "accelplane:capacity-start": "2026-12-21T11:30:00Z", "accelplane:capacity-end": "2026-12-23T11:30:00Z",
                 "accelplane:capacity-upfront-usd": upfront, "accelplane:capacity-max-upfront-usd": cap,
                 **(APPROVED if approval is None else approval)}})


CAPACITY_CASES: dict[str, Case] = {
    "AP-CAP-001": Case(
        passing=[_subnet(), _block(), _budget(5000)],
        failing=[_subnet(), _block(approval={}, upfront="3400.00"), _budget(5000)],
        expect="buying capacity block cb-0e4b2c9d8a7f61352 (2026-12-21T11:30:00Z to 2026-12-23T11:30:00Z, "
        "$3,400.00 upfront) needs approved_by and approved_on",
        target="burst-block",
    ),
}
