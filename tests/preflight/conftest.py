"""`accelplane preflight` on AWS: moto for the EC2 reads it implements (instance types, offerings per
zone, instances, subnets), botocore's Stubber (validated against the service model) for what moto
lacks: Service Quotas for `ec2`, DescribeCapacityReservations, EKS DescribeClusterVersions and the
public `/aws/service/eks/...` SSM parameters (tests/support/aws_stubs.py says why each)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.preflight import aws_preflight
from accelplane.config.loader import StackConfig, load_stack
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck, PreflightReport, Status
from tests.support.aws_stubs import Answering
from tests.support.stack_files import edited_stack
from tests.verify.conftest import fake_aws  # noqa: F401 - fake credentials only, for every test here

NOW = dt.datetime(2026, 12, 5, 12, tzinfo=dt.UTC)
REGION = "us-west-2"
PROD_RESERVATION = "cr-0a1b2c3d4e5f60718"


def reservation(*, state: str = "active", count: int = 6, zone: str = "us-west-2a", instance_type: str = "p5.48xlarge",
                ends: dt.datetime | None = NOW + dt.timedelta(days=90), kind: str = "default",
                available: int | None = None, starts: dt.datetime | None = None) -> dict[str, Any]:
    """DescribeCapacityReservations' item (botocore's ec2 model): `available` what no instance uses (all of
    it by default), `starts` a capacity block's start."""
    item: dict[str, Any] = {
        "CapacityReservationId": PROD_RESERVATION, "InstanceType": instance_type, "InstancePlatform": "Linux/UNIX",
        "AvailabilityZone": zone, "TotalInstanceCount": count,
        "AvailableInstanceCount": count if available is None else available, "State": state,
        "ReservationType": kind, "EndDateType": "limited" if ends else "unlimited",
    }
    if ends:
        item["EndDate"] = ends
    if starts:
        item["StartDate"] = starts
    return item


@dataclass
class Account:
    """An AWS account in moto, with the answers moto cannot give held per test."""

    clients: AwsClients
    quotas: dict[str, float | tuple[str, str]] = field(default_factory=dict)  # code -> applied value or error
    defaults: dict[str, float] = field(default_factory=dict)  # code -> AWS default
    reservations: dict[str, dict[str, Any] | tuple[str, str]] = field(default_factory=dict)
    # What a filtered DescribeCapacityReservations lists (no ids asked: the bought Capacity Blocks).
    listed: list[dict[str, Any]] = field(default_factory=list)
    versions: list[dict[str, Any]] | tuple[str, str] = field(default_factory=list)
    # The public SSM parameters AWS publishes (name -> value); any other name is ParameterNotFound.
    parameters: dict[str, str] = field(default_factory=dict)
    stubs: list[Answering] = field(default_factory=list)

    def ec2(self) -> Any:
        return self.clients("ec2")

    def run(self, instance_type: str, count: int = 1, *, tags: dict[str, str] | None = None,
            spot: bool = False) -> None:
        """Instances already running in the account (moto's real RunInstances)."""
        params: dict[str, Any] = {"ImageId": "ami-12c6146b", "InstanceType": instance_type, "MinCount": count,
                                  "MaxCount": count}
        if tags:
            params["TagSpecifications"] = [{"ResourceType": "instance",
                                            "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}]
        if spot:
            params["InstanceMarketOptions"] = {"MarketType": "spot"}
        boto3.client("ec2", region_name=REGION).run_instances(**params)

    def preflight(self, stack: StackConfig, **options: Any) -> PreflightReport:
        settings: dict[str, Any] = {"now": NOW, **options}
        opts = PreflightOptions(**settings)
        checks = aws_preflight(stack.platform, self.clients, opts)
        return PreflightReport(stack.stack, "aws", f"account 123456789012, region {REGION}", "moto", checks,
                               allow_unknown=opts.allow_unknown)


def _quota_answer(account: Account) -> Any:
    def answer(params: dict[str, Any]) -> Any:
        found = account.quotas.get(params["QuotaCode"])
        if found is None:
            return ("NoSuchResourceException", "The request failed because the specified quota does not exist.")
        if isinstance(found, tuple):
            return found
        return {"Quota": {"ServiceCode": "ec2", "QuotaCode": params["QuotaCode"], "Value": found, "Unit": "None"}}
    return answer


def _default_answer(account: Account) -> Any:
    def answer(params: dict[str, Any]) -> Any:
        value = account.defaults.get(params["QuotaCode"], 0.0)
        return {"Quota": {"ServiceCode": "ec2", "QuotaCode": params["QuotaCode"], "Value": value, "Unit": "None"}}
    return answer


def _reservations_answer(account: Account) -> Any:
    def answer(params: dict[str, Any]) -> Any:
        if "CapacityReservationIds" not in params:
            wanted = {f["Name"]: set(f["Values"]) for f in params.get("Filters") or []}
            keys = {"instance-type": "InstanceType", "availability-zone": "AvailabilityZone"}
            return {"CapacityReservations": [item for item in account.listed
                                             if all(item[keys[name]] in values for name, values in wanted.items())]}
        found = [account.reservations.get(i) for i in params["CapacityReservationIds"]]
        for item in found:
            if isinstance(item, tuple):
                return item
        if any(item is None for item in found):
            return ("InvalidCapacityReservationId.NotFound", "The capacity reservation ID does not exist")
        return {"CapacityReservations": found}
    return answer


def _versions_answer(account: Account) -> Any:
    def answer(params: dict[str, Any]) -> Any:
        if isinstance(account.versions, tuple):
            return account.versions
        wanted = set(params.get("clusterVersions") or [])
        return {"clusterVersions": [v for v in account.versions if not wanted or v["clusterVersion"] in wanted]}
    return answer


def _parameter_answer(account: Account) -> Any:
    def answer(params: dict[str, Any]) -> Any:
        name = params["Name"]
        if name not in account.parameters:
            return ("ParameterNotFound", "")
        return {"Parameter": {"Name": name, "Type": "String", "Value": account.parameters[name], "Version": 1}}
    return answer


@pytest.fixture
def account() -> Iterator[Account]:
    with mock_aws():
        clients = AwsClients(REGION, session=boto3.Session(region_name=REGION), max_attempts=2)
        found = Account(clients)
        # What a comfortable account holds: every quota the example stacks draw on, well above need.
        found.quotas.update({"L-1216C47A": 1152.0, "L-417A185B": 1536.0, "L-DB2E81BA": 512.0,
                             "L-1945791B": 256.0, "L-2C3B7624": 1024.0, "L-3819A6DF": 256.0})
        found.reservations[PROD_RESERVATION] = reservation()
        # The EKS-optimized AL2023 images of release v20251120 (the example stacks' ami_release_version),
        # named as AWS publishes them under /aws/service/eks/optimized-ami/.
        for variant, image in (("nvidia", "ami-0a1b2c3d4e5f60718"), ("neuron", "ami-0f1e2d3c4b5a69788")):
            found.parameters[f"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/{variant}/"
                             f"amazon-eks-node-al2023-x86_64-{variant}-1.33-v20251120/image_id"] = image
        # A pool that pins no release reads its AMI type's recommended image.
        found.parameters["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/"
                         "image_id"] = "ami-0c1d2e3f4a5b60789"
        found.versions = [{"clusterVersion": "1.33", "clusterType": "eks", "versionStatus": "STANDARD_SUPPORT",
                           "status": "standard-support",
                           "endOfStandardSupportDate": dt.datetime(2027, 3, 29, tzinfo=dt.UTC),
                           "endOfExtendedSupportDate": dt.datetime(2028, 3, 29, tzinfo=dt.UTC)}]
        for service, operation, answer in (
            ("service-quotas", "GetServiceQuota", _quota_answer(found)),
            ("service-quotas", "GetAWSDefaultServiceQuota", _default_answer(found)),
            ("ec2", "DescribeCapacityReservations", _reservations_answer(found)),
            ("eks", "DescribeClusterVersions", _versions_answer(found)),
            ("ssm", "GetParameter", _parameter_answer(found)),
        ):
            stub = Answering(clients(service), operation, answer)
            stub.activate()
            found.stubs.append(stub)
        yield found


variant = edited_stack  # the example stack with each `old -> new` edit made once


# prod with the placement-group pools' zone first where moto's offerings (AWS's, as moto records
# them) have trn1.32xlarge: us-west-2b.
FITTING_ZONES = ("availability_zones: [us-west-2a, us-west-2b, us-west-2c]",
                 "availability_zones: [us-west-2b, us-west-2a, us-west-2c]")


@pytest.fixture
def fitting_prod(tmp_path: Path, account: Account) -> StackConfig:
    account.reservations[PROD_RESERVATION] = reservation(zone="us-west-2b")
    return variant(tmp_path, FITTING_ZONES)


@pytest.fixture(scope="session")
def prod() -> StackConfig:
    return load_stack("prod")


def only(report: PreflightReport, check: str, subject_part: str = "") -> PreflightCheck:
    found = [c for c in report.checks if c.check == check and subject_part in c.subject]
    assert len(found) == 1, [(c.check, c.subject, c.status) for c in report.checks]
    return found[0]


def statuses(report: PreflightReport) -> dict[str, Status]:
    return {f"{c.check} {c.subject}": c.status for c in report.checks}
