"""Faults on Google Cloud: a denied read names the permission, a disabled API says how to enable it,
throttling past the bounded retries says so; each such check is unknown, never fit. Missing
credentials and AWS-only options are bad input (exit 2)."""

from __future__ import annotations

import pytest

from accelplane.preflight.results import Status
from tests.preflight.conftest import only
from tests.preflight_gcp.conftest import preflight
from tests.support.cli_contract import run_cli
from tests.support.gcp_capacity import Capacity
from tests.support.google_api_fake import GoogleApiFake


def test_a_denied_quota_read_names_the_permission(project: Capacity, fake: GoogleApiFake) -> None:
    fake.fault("compute.regions.get", "denied", permission="compute.regions.get")
    report = preflight(project)
    check = only(report, "quota.accelerator", "TPU_LITE_PODSLICE_V5")
    assert check.status is Status.unknown and "missing permission compute.regions.get" in check.message
    assert report.failed


def test_a_disabled_api_says_how_to_enable_it(project: Capacity, fake: GoogleApiFake) -> None:
    fake.fault("cloudquotas.projects.locations.services.quotaInfos.get", "disabled")
    check = only(preflight(project), "quota.accelerator", "GPUS-PER-GPU-FAMILY")
    assert check.status is Status.unknown
    assert "gcloud services enable cloudquotas.googleapis.com" in check.message


def test_throttling_is_retried_then_unknown(project: Capacity, fake: GoogleApiFake) -> None:
    fake.fault("container.projects.locations.getServerConfig", "rate_limited")
    report = preflight(project)
    check = only(report, "cluster.version")
    assert check.status is Status.unknown and "throttled past its retries" in check.message
    # Asked max_attempts (3) times with backoff, then given up: bounded.
    assert fake.calls.count("container.projects.locations.getServerConfig") == 3
    assert report.api_calls["retries"] == 2


def test_a_throttled_read_that_recovers_is_judged(project: Capacity, fake: GoogleApiFake) -> None:
    fake.fault("compute.reservations.get", "rate_limited", times=1)
    assert only(preflight(project), "reservation").status is Status.passed


def test_missing_credentials_are_bad_input(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "none.json"))
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")
    outcome = run_cli(["preflight", "--stack", "tpu-prod"])
    assert outcome.code == 2 and "Traceback" not in outcome.err
    assert "credentials" in outcome.err


@pytest.mark.parametrize("option", [["--endpoint-url", "http://127.0.0.1:9"], ["--profile", "prod"]])
def test_aws_options_on_a_google_stack_are_bad_input(option: list[str]) -> None:
    outcome = run_cli(["preflight", "--stack", "tpu-prod", *option])
    assert outcome.code == 2 and option[0] in outcome.err and "not used on Google Cloud" in outcome.err
