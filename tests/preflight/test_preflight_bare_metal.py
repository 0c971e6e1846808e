"""A stack with bare-metal hosts: `accelplane preflight` runs the whole-fleet node preflight
(playbooks/preflight.yml through ansible-runner; no connection to the hosts, nothing changed) and its
verdict per host joins the report, so one command covers the stack."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.config.loader import load_stack
from accelplane.preflight.bare_metal import node_preflight_checks
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import Status
from tests.preflight.conftest import Account, variant
from tests.support.cli_contract import run_cli


def test_a_fleet_the_matrix_accepts() -> None:
    checks = node_preflight_checks(load_stack("lab"), PreflightOptions())
    assert {(c.subject, c.status) for c in checks} == {
        ("host h100-01", Status.passed), ("host h100-02", Status.passed), ("host mi300x-01", Status.passed)}


def test_an_incompatible_profile_fails_its_hosts(tmp_path: Path) -> None:
    stack = variant(tmp_path, ('fabric_manager: "570.172.08"', 'fabric_manager: "570.172.09"'), stack="lab")
    checks = {c.subject: c for c in node_preflight_checks(stack, PreflightOptions())}
    assert checks["host h100-01"].status is Status.failed
    assert "Fabric Manager 570.172.09 differs from driver 570.172.08" in checks["host h100-01"].message
    assert checks["host mi300x-01"].status is Status.passed


def test_the_command_covers_the_cloud_and_the_fleet(account: Account, monkeypatch: pytest.MonkeyPatch) -> None:
    import accelplane.clouds.aws.verify.reader as reader

    monkeypatch.setattr(reader, "aws_clients", lambda *_args, **_kwargs: account.clients)
    outcome = run_cli(["preflight", "--stack", "lab", "--format", "json"])
    assert "host h100-01" in outcome.out and "quota.vcpu" in outcome.out, outcome.err
