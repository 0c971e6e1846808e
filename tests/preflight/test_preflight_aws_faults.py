"""Faults on AWS: a denied call names the IAM action to grant, throttling past the retries says so,
missing credentials and options of the other cloud are bad input (exit 2); a check that could not be
made is unknown, never fit."""

from __future__ import annotations

from typing import Any

import pytest

from accelplane.config.loader import StackConfig
from accelplane.preflight.results import Status
from tests.preflight.conftest import Account, only
from tests.support.aws_stubs import Answering
from tests.support.cli_contract import run_cli


def _refuse(account: Account, service: str, operation: str, code: str, message: str) -> None:
    Answering(account.clients(service), operation, lambda _params: (code, message)).activate()


def test_a_denied_quota_read_is_unknown_and_names_the_action(account: Account, fitting_prod: StackConfig) -> None:
    account.quotas["L-417A185B"] = ("AccessDeniedException", "User: arn:aws:sts::123456789012:assumed-role/ci is not "
                                    "authorized to perform: servicequotas:GetServiceQuota")
    account.quotas["L-DB2E81BA"] = account.quotas["L-417A185B"]
    report = account.preflight(fitting_prod)
    check = only(report, "quota.vcpu", "L-DB2E81BA")
    assert check.status is Status.unknown
    assert "service-quotas.GetServiceQuota was denied: grant servicequotas:GetServiceQuota" in check.message
    assert report.failed and not account.preflight(fitting_prod, allow_unknown=True).failed


def test_throttling_past_the_retries_is_unknown(account: Account, fitting_prod: StackConfig) -> None:
    account.reservations["cr-0a1b2c3d4e5f60718"] = ("RequestLimitExceeded", "Request limit exceeded.")
    check = only(account.preflight(fitting_prod), "reservation")
    assert check.status is Status.unknown and "throttled past its retries (RequestLimitExceeded)" in check.message


def test_a_denied_offerings_read_leaves_every_pool_unknown(account: Account, fitting_prod: StackConfig) -> None:
    _refuse(account, "ec2", "DescribeInstanceTypeOfferings", "UnauthorizedOperation",
            "You are not authorized to perform this operation.")
    offerings = [c for c in account.preflight(fitting_prod).checks if c.check == "offering.zone"]
    assert len(offerings) == 5 and {c.status for c in offerings} == {Status.unknown}
    assert "grant ec2:DescribeInstanceTypeOfferings" in offerings[0].message


def test_missing_credentials_are_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(variable, raising=False)
    outcome = run_cli(["preflight", "--stack", "prod", "--endpoint-url", "http://127.0.0.1:9"])
    assert outcome.code == 2 and "no AWS credentials" in outcome.err and "Traceback" not in outcome.err


@pytest.mark.parametrize("option", [["--api-endpoint", "compute=http://127.0.0.1:9/"],
                                    ["--impersonate-service-account", "ci@acme.iam.gserviceaccount.com"]])
def test_google_options_on_an_aws_stack_are_bad_input(option: list[str]) -> None:
    outcome = run_cli(["preflight", "--stack", "prod", *option])
    assert outcome.code == 2 and option[0] in outcome.err and "Google Cloud only" in outcome.err


def test_a_malformed_min_days_is_bad_input() -> None:
    outcome = run_cli(["preflight", "--stack", "prod", "--min-days", "soon"])
    assert outcome.code == 2 and "--min-days" in outcome.err and "whole number of days" in outcome.err


def test_no_such_inventory_is_bad_input(tmp_path: Any) -> None:
    outcome = run_cli(["preflight", "--stack", "lab", "--inventory", str(tmp_path / "nope.yml")])
    assert outcome.code == 2 and "--inventory" in outcome.err
