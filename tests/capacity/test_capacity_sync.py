"""`accelplane capacity sync`: a pool on a bought Capacity Block holds no node before the block is
active, its declared size while it is, and none from 45 minutes before the block ends (the EKS guide:
more than 30 minutes before), judged at an explicit `--now`.

moto serves STS and EKS (the node group and UpdateNodegroupConfig); moto 5.2 has no
DescribeCapacityReservations, so botocore's Stubber answers it (tests/support/aws_stubs.py `Answering`),
each answer validated against the ec2 model. The reservation is written as the API reference shows one
(ReservationType capacity-block, the program's offering tag); the times are worked out by hand from the
example stack's block, 2026-12-21T11:30Z to 2026-12-23T11:30Z.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from accelplane.cli import main
from accelplane.clouds.aws import capacity_sync
from accelplane.clouds.aws.clients import AwsClients
from tests.support.aws_stubs import Answering

REGION = "us-east-1"
START = dt.datetime(2026, 12, 21, 11, 30, tzinfo=dt.UTC)
END = dt.datetime(2026, 12, 23, 11, 30, tzinfo=dt.UTC)


def _reservation(state: str, offering: str = "cb-0e4b2c9d8a7f61352") -> dict[str, Any]:
    return {"CapacityReservationId": "cr-0a1b2c3d4e5f60789", "InstanceType": "p5.48xlarge",
            "InstancePlatform": "Linux/UNIX", "AvailabilityZone": "us-east-1b", "TotalInstanceCount": 2,
            "AvailableInstanceCount": 2, "State": state, "StartDate": START, "EndDate": END,
            "EndDateType": "limited", "ReservationType": "capacity-block",
            "Tags": [{"Key": "accelplane:capacity-offering", "Value": offering},
                     {"Key": "accelplane:capacity-upfront-usd", "Value": "3020.54"},
                     {"Key": "accelplane.io/pool", "Value": "train-h100"}]}


class Aws:
    def __init__(self, clients: AwsClients, answering: Answering) -> None:
        self.clients, self.answering = clients, answering
        self.reservations: list[dict[str, Any]] = []

    def desired(self) -> int:
        group = self.clients("eks").describe_nodegroup(clusterName="acme-burst", nodegroupName="train-h100")
        return group["nodegroup"]["scalingConfig"]["desiredSize"]


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Aws]:
    with mock_aws():
        session = boto3.Session(region_name=REGION)
        clients = AwsClients(REGION, session=session, max_attempts=2)
        answering = Answering(clients("ec2"), "DescribeCapacityReservations",
                              lambda params: {"CapacityReservations": found.reservations})
        found = Aws(clients, answering)
        answering.activate()
        monkeypatch.setattr(capacity_sync, "_clients", lambda platform, connection: clients)
        eks = session.client("eks")
        role = "arn:aws:iam::123456789012:role/acme-burst-node-role"
        eks.create_cluster(name="acme-burst", roleArn=role, resourcesVpcConfig={"subnetIds": ["subnet-0a1b2c3d"]})
        eks.create_nodegroup(clusterName="acme-burst", nodegroupName="train-h100", nodeRole=role,
                             subnets=["subnet-0a1b2c3d"], capacityType="CAPACITY_BLOCK",
                             scalingConfig={"minSize": 0, "maxSize": 2, "desiredSize": 0})
        yield found
        answering.deactivate()


def _sync(capsys: pytest.CaptureFixture[str], now: str, *extra: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["capacity", "sync", "--stack", "train-burst", "--now", now, "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, json.loads(out)


def test_before_the_block_is_active_the_pool_holds_nothing(aws, capsys) -> None:
    aws.reservations = [_reservation("scheduled")]
    code, data = _sync(capsys, "2026-12-20T00:00:00Z")
    assert code == 0
    [row] = data["pools"]
    assert (row["state"], row["live_size"], row["size"], row["action"]) == ("scheduled", 0, 0, "none")
    assert row["why"] == "scheduled until 2026-12-21T11:30:00Z: no node yet"
    assert row["capacity"] == "capacity block cr-0a1b2c3d4e5f60789 (cb-0e4b2c9d8a7f61352)"
    # Read where the block is: the pool's type in the block's zone.
    [asked] = aws.answering.calls
    assert asked["Filters"] == [{"Name": "instance-type", "Values": ["p5.48xlarge"]},
                                {"Name": "availability-zone", "Values": ["us-east-1b"]}]


def test_an_active_block_fills_the_pool_and_drains_it_45_minutes_before_its_end(aws, capsys) -> None:
    aws.reservations = [_reservation("active")]
    code, data = _sync(capsys, "2026-12-21T12:00:00Z")
    assert code == 1  # the pool should hold 2 nodes and holds none: said, not done, without --apply
    assert data["pools"][0]["action"] == "would set" and aws.desired() == 0
    # Both machines of the active block bill unused: $3,020.54 / (2 x 48 h) = $31.464 each an hour.
    assert (data["pools"][0]["idle_machines"], data["pools"][0]["idle_usd_per_hour"]) == (2, 62.93)
    code, data = _sync(capsys, "2026-12-21T12:00:00Z", "--apply")
    assert code == 0 and data["pools"][0]["action"] == "set"
    assert data["pools"][0]["why"] == "active: 2 node(s) until 2026-12-23T10:45:00Z"
    assert aws.desired() == 2 and data["pools"][0]["idle_machines"] == 0
    # One minute before the drain: still held. At 10:45, 45 minutes before 11:30: drained.
    assert _sync(capsys, "2026-12-23T10:44:00Z", "--apply")[1]["pools"][0]["action"] == "none"
    code, data = _sync(capsys, "2026-12-23T10:45:00Z", "--apply")
    assert code == 0 and data["pools"][0]["action"] == "set" and aws.desired() == 0
    assert data["pools"][0]["why"] == "ends 2026-12-23T11:30:00Z: drained from 2026-12-23T10:45:00Z"


def test_a_block_not_bought_or_another_offering_leaves_the_pool_empty(aws, capsys) -> None:
    aws.reservations = [_reservation("active", offering="cb-0ffffffffffffffff")]  # someone else's block
    code, data = _sync(capsys, "2026-12-21T12:00:00Z", "--apply")
    assert code == 0
    [row] = data["pools"]
    assert (row["capacity"], row["size"], row["action"]) == ("none found", 0, "none")
    assert aws.desired() == 0


def test_an_expired_block_drains_the_pool(aws, capsys) -> None:
    eks = boto3.client("eks", region_name=REGION)  # the group as an earlier sync left it: 2 nodes
    eks.update_nodegroup_config(clusterName="acme-burst", nodegroupName="train-h100",
                                scalingConfig={"minSize": 0, "maxSize": 2, "desiredSize": 2})
    aws.reservations = [_reservation("expired")]
    code, data = _sync(capsys, "2026-12-24T00:00:00Z", "--apply")
    assert code == 0 and data["pools"][0]["why"] == "expired: no node" and aws.desired() == 0


def test_a_stack_without_bought_capacity_is_refused(capsys) -> None:
    assert main(["capacity", "sync", "--stack", "dev"]) == 2
    assert "no pool of the stack is on bought capacity (capacity.block)" in capsys.readouterr().err
