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


def test_nodes_only_checks_the_fleet_without_cloud_credentials(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    """`preflight --stack lab` asked for AWS credentials when only the fleet was to be checked. With
    --nodes-only nothing is read from the cloud: no credentials, no cloud client, the hosts' checks."""
    import accelplane.clouds.aws.verify.reader as reader

    def no_cloud(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("--nodes-only built a cloud client")

    monkeypatch.setattr(reader, "aws_clients", no_cloud)
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    outcome = run_cli(["preflight", "--stack", "lab", "--nodes-only"])
    assert outcome.code == 0, outcome.err
    assert "the bare-metal hosts only (--nodes-only: nothing read from the cloud)" in outcome.out
    assert "host h100-01" in outcome.out and "quota.vcpu" not in outcome.out


def test_nodes_only_on_a_stack_without_hosts_is_bad_input() -> None:
    outcome = run_cli(["preflight", "--stack", "dev", "--nodes-only"])
    assert outcome.code == 2 and "declares no bare_metal hosts" in outcome.err and "--nodes-only" in outcome.err
