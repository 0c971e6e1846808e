"""`accelplane preflight` for a GKE pool on a calendar-mode future reservation it requests (tpu-prod's
H100 training pool: two a3-highgpu-8g in us-central1-a, 2026-12-21 to 2027-01-04): the request read with
`futureReservations.get` and judged by its procurement status and terms. The request is written as
compute v1's reference shows one; the fake checks every answer against the discovery document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accelplane.config.loader import StackConfig
from accelplane.preflight.results import Status
from tests.preflight.conftest import only
from tests.preflight_gcp.conftest import preflight, variant
from tests.support.gcp_capacity import Capacity, provision

SPOT = "        capacity: {type: spot}\n        scaling: {min: 0, desired: 1, max: 2}\n"
REQUEST = ("        capacity:\n          type: capacity_reservation\n          future_reservation:\n"
           "            zone: us-central1-a\n            machines: 2\n            start: 2026-12-21T00:00:00Z\n"
           "            end: 2027-01-04T00:00:00Z\n            max_usd: 60000\n"
           "        scaling: {min: 0, desired: 0, max: 2}\n")
PATH = "projects/acme-ml-tpu-prod/zones/us-central1-a/futureReservations/acme-tpu-train-h100"


@pytest.fixture
def requesting(tmp_path: Path) -> StackConfig:
    return variant(tmp_path, (SPOT, REQUEST))


@pytest.fixture
def project(fake, requesting: StackConfig) -> Capacity:  # type: ignore[override]
    return provision(fake, requesting)


def _request(status: str, end: str = "2027-01-04T00:00:00Z", count: str = "2") -> dict[str, Any]:
    return {"kind": "compute#futureReservation", "name": "acme-tpu-train-h100", "reservationMode": "CALENDAR",
            "specificSkuProperties": {"instanceProperties": {"machineType": "a3-highgpu-8g"}, "totalCount": count},
            "timeWindow": {"startTime": "2026-12-21T00:00:00Z", "endTime": end},
            "status": {"procurementStatus": status}}


def test_a_request_not_made_yet_passes_its_pool_holding_no_node(project: Capacity, fake) -> None:
    report = preflight(project)
    check = only(report, "future_reservation")
    assert check.status is Status.passed and check.has == "not requested"
    assert check.message.startswith("not requested yet: `pulumi up` submits it for Google's review")
    assert check.needs == "2xa3-highgpu-8g in us-central1-a, 2026-12-21T00:00:00Z to 2027-01-04T00:00:00Z"
    # A request needs the quota of what it reserves (Google declines it, or delivers part of it, without):
    # the pool's 2 machines x 8 H100 (no surge node on a reservation) beside infer-h100's 8 + 1 surge
    # x 1 H100: 16 + 9 = 25 GPUs against the on-demand H100 quota.
    [quota] = [c for c in report.checks if c.check == "quota.accelerator" and c.at == ("node_pools", 3)]
    assert "gpu_family=NVIDIA_H100" in quota.subject
    assert quota.needs == "25 GPUs (train-h100 2xa3-highgpu-8g (8 each), infer-h100 9xa3-highgpu-1g (1 each))"
    assert "compute.futureReservations.get" in fake.calls


def test_an_approved_request_says_when_it_starts(project: Capacity, fake) -> None:
    fake.put("compute", "v1", PATH, _request("APPROVED"))
    check = only(preflight(project), "future_reservation")
    assert check.status is Status.passed
    assert check.message == ("the request holds the pool (approved; starts 2026-12-21T00:00:00Z, the pool holds no "
                             "node until then)")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (_request("DECLINED"), "Google answered DECLINED: the machines will not come"),
        (_request("FULFILLED", count="1"), "the request holds 1xa3-highgpu-8g, 2026-12-21T00:00:00Z to "
         "2027-01-04T00:00:00Z; the declaration says 2xa3-highgpu-8g"),
    ],
    ids=["declined", "other-terms"],
)
def test_a_request_that_cannot_hold_the_pool_fails(project: Capacity, fake, answer, expected) -> None:
    fake.put("compute", "v1", PATH, answer)
    check = only(preflight(project), "future_reservation")
    assert check.status is Status.failed and expected in check.message, check.message


def test_a_request_ending_within_min_days_fails_in_hours(project: Capacity, fake, tmp_path) -> None:
    # Preflight's clock: 2026-12-05T12:00Z. A request ending 2026-12-06T11:00Z has 23 hours left.
    text_end = "2026-12-06T11:00:00Z"
    stack = variant(tmp_path, (SPOT, REQUEST.replace("start: 2026-12-21T00:00:00Z", "start: 2026-12-04T11:00:00Z")
                               .replace("end: 2027-01-04T00:00:00Z", f"end: {text_end}")))
    answer = _request("FULFILLED", end=text_end)
    answer["timeWindow"]["startTime"] = "2026-12-04T11:00:00Z"
    fake.put("compute", "v1", PATH, answer)
    check = only(preflight(project, stack), "future_reservation")
    assert check.status is Status.failed
    assert "it ends 2026-12-06T11:00:00Z (23 hours left, at least" in check.message
