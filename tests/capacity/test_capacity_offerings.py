"""`accelplane capacity offerings`: what scarce capacity a pool could get, read-only.

AWS: moto for the subnets (the pool's zones), and botocore's Stubber for DescribeCapacityBlockOfferings
(moto has none), every answer validated against the ec2 model. Google Cloud: no Compute Engine emulator
exists to run here, so the Google API fake serves compute v1's `advice.calendarMode` (tests/support/
google_api_fake/advice.py), request and answer checked against the discovery document's schemas.
The offers below are written as the APIs document them; the per-machine-hour price is worked out by hand.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from accelplane.capacity.offerings import OfferingQuery, offerings_of
from accelplane.cli import main
from accelplane.clouds.aws.capacity_offerings import offerings_with
from accelplane.clouds.aws.clients import AwsClients
from accelplane.config.loader import load_stack
from tests.support.aws_stubs import Answering
from tests.support.google_api_fake import GoogleApiFake
from tests.support.google_api_fake.key_file import key_file

NOW = dt.datetime(2026, 12, 7, 10, tzinfo=dt.UTC)
REGION = "us-west-2"


def _block(offering: str, zone: str, start: dt.datetime, days: int, fee: str) -> dict[str, Any]:
    # Every Capacity Block ends at 11:30 UTC (EC2 User Guide, "Find and purchase Capacity Blocks").
    end = (start + dt.timedelta(days=days)).replace(hour=11, minute=30)
    return {"CapacityBlockOfferingId": offering, "InstanceType": "p5.48xlarge", "AvailabilityZone": zone,
            "InstanceCount": 4, "StartDate": start, "EndDate": end, "CapacityBlockDurationHours": days * 24,
            "UpfrontFee": fee, "CurrencyCode": "USD", "Tenancy": "default"}


@pytest.fixture
def aws() -> Iterator[tuple[AwsClients, Answering]]:
    with mock_aws():
        clients = AwsClients(REGION, session=boto3.Session(region_name=REGION), max_attempts=2)
        start = dt.datetime(2026, 12, 9, 11, 30, tzinfo=dt.UTC)
        answering = Answering(clients("ec2"), "DescribeCapacityBlockOfferings", lambda params: {
            "CapacityBlockOfferings": [_block("cbr-0a1b2c3d4e5f60001", "us-west-2c", start, 2, "7045.12"),
                                       _block("cbr-0a1b2c3d4e5f60002", "us-west-2a", start, 2, "8806.40")]})
        answering.activate()
        yield clients, answering
        answering.deactivate()


def test_capacity_blocks_for_the_h100_pool_with_their_price_per_machine_hour(aws) -> None:
    clients, answering = aws
    stack = load_stack("prod")
    [pool] = [p for p in stack.platform.node_pools if p.name == "train-h100"]
    query = OfferingQuery(pool=pool, count=4, hours=48, earliest=NOW, latest=NOW + dt.timedelta(days=14))
    offers = offerings_with(stack.platform, query, clients)
    # Asked as the API takes it: the pool's type, 4 instances, 48 hours, ending by the latest start + 48 h.
    [asked] = answering.calls
    assert (asked["InstanceType"], asked["InstanceCount"], asked["CapacityDurationHours"]) == ("p5.48xlarge", 4, 48)
    assert asked["EndDateRange"] == NOW + dt.timedelta(days=16)
    by_id = {offer.offering_id: offer for offer in offers}
    first = by_id["cbr-0a1b2c3d4e5f60002"]
    # 2026-12-09 11:30 to 2026-12-11 11:30 is 48 hours; $8,806.40 / (4 x 48) = $45.8667 per machine-hour.
    assert (first.zone, first.hours, first.upfront_usd) == ("us-west-2a", 48.0, 8806.40)
    assert first.per_machine_hour_usd == pytest.approx(45.8667, abs=1e-4)
    # prod's private subnets are in us-west-2a, -b, -c; the placement group keeps train-h100 in the first.
    assert first.in_pool_zones and not by_id["cbr-0a1b2c3d4e5f60001"].in_pool_zones


@pytest.mark.parametrize(("hours", "count", "why"), [
    (36, 4, "36 hours is not a Capacity Block duration"),
    (15 * 24, 4, "360 hours is not a Capacity Block duration"),  # past 14 days: whole weeks only
    (21 * 24, 65, "65 instances: a Capacity Block holds 1 to 64"),
])
def test_a_question_capacity_blocks_cannot_answer_is_refused_first(hours: int, count: int, why: str) -> None:
    facet = offerings_of("aws")
    assert facet is not None
    pool = load_stack("prod").platform.node_pools[0]
    problem = facet.query_problem(OfferingQuery(pool=pool, count=count, hours=hours, earliest=NOW, latest=NOW))
    assert problem is not None and problem.startswith(why)
    assert facet.query_problem(OfferingQuery(pool=pool, count=4, hours=21 * 24, earliest=NOW, latest=NOW)) is None


@pytest.fixture
def google(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GoogleApiFake]:
    with GoogleApiFake() as fake:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file(tmp_path, fake.url, "acme-ml-tpu-prod",
                                                                          "capacity")))
        # What Google could schedule: v5p hosts in us-central1-a from the 12th, and in -b (not a zone of the
        # pool) at once; another machine type; a zone of another region.
        fake.state.calendar = [  # type: ignore[attr-defined]
            ("us-central1-a", "ct5p-hightpu-4t", 8, dt.datetime(2026, 12, 12, tzinfo=dt.UTC)),
            ("us-central1-b", "ct5p-hightpu-4t", 8, NOW),
            ("us-central1-a", "ct5lp-hightpu-8t", 8, NOW),
            ("us-east5-a", "ct5p-hightpu-4t", 8, NOW)]
        yield fake
        assert fake.schema_errors == []


def _cli(fake: GoogleApiFake, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["capacity", "offerings", "--stack", "tpu-prod", "--pool", "train-v5p", "--now",
                 "2026-12-07T10:00:00Z", f"--api-endpoint=compute={fake.endpoint('compute', 'v1')}", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err


def test_calendar_mode_advice_for_the_v5p_pool_in_its_zone(google, capsys) -> None:
    code, out, err = _cli(google, capsys, "--days", "7", "--count", "2", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    # The pool's zone only (the location policy allows us-central1-a): from the 12th, for 7 days, no price.
    assert [(o["zone"], o["start"], o["end"], o["count"], o["upfront_usd"]) for o in data["offerings"]] == [
        ("us-central1-a", "2026-12-12T00:00:00Z", "2026-12-19T00:00:00Z", 2, None)]
    assert google.calls.count("compute.advice.calendarMode") == 1


def test_no_offer_in_the_window_says_what_to_try_and_exits_1(google, capsys) -> None:
    code, out, _ = _cli(google, capsys, "--within", "2")  # the 12th is past a start by the 9th
    assert code == 1 and "none offered for that: try other dates" in out


def test_calendar_mode_is_one_to_ninety_days(google, capsys) -> None:
    code, _, err = _cli(google, capsys, "--days", "91")
    assert code == 2 and "calendar-mode future reservations: 2184 hours is not a calendar-mode duration" in err
    assert "compute.advice.calendarMode" not in google.calls


def test_without_google_credentials_offerings_is_bad_input(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    capsys.readouterr()
    code = main(["capacity", "offerings", "--stack", "tpu-prod", "--pool", "train-v5p"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "missing.json, which does not exist" in err
