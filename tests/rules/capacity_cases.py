"""AP-CAP-001 fixtures: a Capacity Block purchase as the program declares it (its terms in tags), beside a
budget and the subnet the estimate reads the region from. The fee, $3,020.54, is two p5.48xlarge for 48
hours at $31.464 an hour (2 * 48 * 31.464), an offering's whole price.

AP-CAP-003 fixtures: a calendar-mode future reservation as the program requests it (its approval in the
description), beside a Cloud Billing budget. Two a3-highgpu-8g for 14 days in us-central1-a commit up to
2 * 336 h * $88.49 = $59,465.28 at the on-demand list price (accelplane/clouds/gcp/prices.yaml)."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.gcp.resource_types import FUTURE_RESERVATION
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


def _request(description: str) -> Any:
    return res(FUTURE_RESERVATION, "acme-tpu-train-h100-future-reservation", {
        "name": "acme-tpu-train-h100", "zone": "us-central1-a", "reservationMode": "CALENDAR",
        "planningStatus": "SUBMITTED", "reservationName": "acme-tpu-train-h100", "specificReservationRequired": True,
        "specificSkuProperties": {"instanceProperties": {"machineType": "a3-highgpu-8g"}, "totalCount": "2"},
        "timeWindow": {"startTime": "2026-12-21T00:00:00Z", "endTime": "2027-01-04T00:00:00Z"},
        "description": description})


def _gcp_budget() -> Any:
    return res("gcp:billing/budget:Budget", "acme-tpu-budget",
               {"amount": {"specifiedAmount": {"units": "100000", "currencyCode": "USD"}}})


CAPACITY_CASES: dict[str, Case] = {
    "AP-CAP-001": Case(
        passing=[_subnet(), _block(), _budget(5000)],
        failing=[_subnet(), _block(approval={}, upfront="3400.00"), _budget(5000)],
        expect="buying capacity block cb-0e4b2c9d8a7f61352 (2026-12-21T11:30:00Z to 2026-12-23T11:30:00Z, "
        "$3,400.00 upfront) needs approved_by and approved_on",
        target="burst-block",
    ),
    "AP-CAP-003": Case(
        passing=[_request("accelplane purchase; approved-by=head-of-ml@acme.example; approved-on=2026-12-01; "
                          "max-usd=60000.00"), _gcp_budget()],
        failing=[_request("accelplane purchase; max-usd=60000.00"), _gcp_budget()],
        expect="buying future reservation acme-tpu-train-h100 (2 x a3-highgpu-8g, 2026-12-21T00:00:00Z to "
        "2027-01-04T00:00:00Z) needs approved_by and approved_on",
        target="acme-tpu-train-h100-future-reservation",
    ),
}
