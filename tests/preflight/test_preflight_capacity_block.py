"""Preflight of a pool that buys a Capacity Block (stacks/Pulumi.train-burst.yaml): bought already and
alive, or still offered exactly as declared, or a failure naming what changed — never a "yes" for an
offering that `pulumi up` can no longer buy on the approved terms.

The offerings and reservations are written as the EC2 API reference shows them (DescribeCapacityBlock-
Offerings, DescribeCapacityReservations with ReservationType capacity-block), answered by botocore's
Stubber and validated against the ec2 model (tests/preflight/conftest.py: moto has neither call).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from accelplane.clouds.aws.preflight.blocks import block_checks
from accelplane.clouds.aws.preflight.calls import AwsReads
from accelplane.clouds.aws.preflight.demand import PoolDemand
from accelplane.config.loader import load_stack
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import Status
from tests.support.aws_stubs import Answering

START = dt.datetime(2026, 12, 21, 11, 30, tzinfo=dt.UTC)
END = dt.datetime(2026, 12, 23, 11, 30, tzinfo=dt.UTC)
NOW = dt.datetime(2026, 12, 7, 12, tzinfo=dt.UTC)
OFFERING = "cb-0e4b2c9d8a7f61352"


def _offering(offering: str = OFFERING, fee: str = "3020.54", zone: str = "us-east-1b") -> dict[str, Any]:
    return {"CapacityBlockOfferingId": offering, "InstanceType": "p5.48xlarge", "AvailabilityZone": zone,
            "InstanceCount": 2, "StartDate": START, "EndDate": END, "CapacityBlockDurationHours": 48,
            "UpfrontFee": fee, "CurrencyCode": "USD", "Tenancy": "default"}


def _bought(state: str) -> dict[str, Any]:
    return {"CapacityReservationId": "cr-0a1b2c3d4e5f60789", "InstanceType": "p5.48xlarge",
            "InstancePlatform": "Linux/UNIX", "AvailabilityZone": "us-east-1b", "TotalInstanceCount": 2,
            "AvailableInstanceCount": 2, "State": state, "StartDate": START, "EndDate": END,
            "EndDateType": "limited", "ReservationType": "capacity-block",
            "Tags": [{"Key": "accelplane:capacity-offering", "Value": OFFERING}]}


@pytest.fixture
def offers(account) -> Any:
    listed: list[dict[str, Any]] = []
    stub = Answering(account.ec2(), "DescribeCapacityBlockOfferings", lambda params: {"CapacityBlockOfferings": listed})
    stub.activate()
    yield listed, stub
    stub.deactivate()


def _check(account, now: dt.datetime = NOW):
    stack = load_stack("train-burst")
    [(index, pool)] = [(i, p) for i, p in enumerate(stack.platform.node_pools) if p.capacity.block is not None]
    [check] = block_checks([PoolDemand(index, pool, ("us-east-1b",))], AwsReads(account.clients),
                           PreflightOptions(now=now))
    return check


def test_an_offering_still_sold_on_the_declared_terms_passes_and_names_the_price(account, offers) -> None:
    listed, stub = offers
    listed += [_offering("cb-0123456789abcdef0", fee="2890.00"), _offering()]
    check = _check(account)
    assert check.status is Status.passed, check
    assert check.message == "offered as declared: `pulumi up` buys it for $3,020.54"
    # Asked with the declared terms: the pool's type, the block's count, 48 hours, its own dates.
    [asked] = stub.calls
    assert (asked["InstanceType"], asked["InstanceCount"], asked["CapacityDurationHours"]) == ("p5.48xlarge", 2, 48)
    assert (asked["StartDateRange"], asked["EndDateRange"]) == (START, END)


@pytest.mark.parametrize(("offering", "words"), [
    (None, "not bought, and no longer offered (sold, or withdrawn)"),
    (_offering(fee="3150.00"), "offered on other terms: its fee is $3,150.00, declared $3,020.54"),
    (_offering(fee="3300.00"), "above the approved maximum $3,200.00"),
    (_offering(zone="us-east-1c"), "it is in us-east-1c, declared us-east-1b"),
])
def test_an_offering_gone_or_changed_fails_naming_what_changed(account, offers, offering, words) -> None:
    listed, _ = offers
    if offering is not None:
        listed.append(offering)
    check = _check(account)
    assert check.status is Status.failed and words in check.message, check


def test_a_bought_block_passes_while_it_can_still_bring_nodes_and_fails_once_gone(account, offers) -> None:
    account.listed.append(_bought("scheduled"))
    check = _check(account)
    assert check.status is Status.passed
    assert check.has == ("bought: cr-0a1b2c3d4e5f60789 scheduled, 2 instances, starts 2026-12-21T11:30:00Z "
                         "(13 days away)")  # 2026-12-07 12:00 to 2026-12-21 11:30: 13 days 23.5 hours
    assert offers[1].calls == []  # bought: no offering is looked up again
    account.listed[:] = [_bought("expired")]
    check = _check(account, now=dt.datetime(2026, 12, 24, tzinfo=dt.UTC))
    assert check.status is Status.failed
    assert check.message == "the bought block is expired: the pool gets no node from it"


def test_a_block_not_bought_by_its_start_can_no_longer_be_bought(account, offers) -> None:
    check = _check(account, now=dt.datetime(2026, 12, 21, 11, 10, tzinfo=dt.UTC))  # 20 minutes before its start
    assert check.status is Status.failed and "it can no longer be bought" in check.message
