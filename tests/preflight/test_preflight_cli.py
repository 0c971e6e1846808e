"""`accelplane preflight` end to end in process on moto: exit codes, and the five formats each
saying the same verdict, with the fix and the stack-file line where it goes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from accelplane.config.loader import StackConfig
from tests.preflight.conftest import Account
from tests.support.cli_contract import run_cli


@pytest.fixture
def connected(account: Account, monkeypatch: pytest.MonkeyPatch) -> Account:
    """The command's clients are the account's (moto plus the stubbed reads)."""
    import accelplane.clouds.aws.verify.reader as reader

    monkeypatch.setattr(reader, "aws_clients", lambda *_args, **_kwargs: account.clients)
    return account


def test_exit_zero_when_everything_fits(connected: Account, fitting_prod: StackConfig) -> None:
    outcome = run_cli(["preflight", "--stack-file", str(fitting_prod.path)])
    assert outcome.code == 0, outcome.out + outcome.err
    assert outcome.out.startswith("accelplane preflight: stack prod (aws) — account 123456789012, region us-west-2")
    assert "CLEAR: 0 short, 0 unknown" in outcome.out


def test_exit_one_with_every_format_agreeing(connected: Account, prod: StackConfig, tmp_path: Path) -> None:
    connected.quotas["L-2C3B7624"] = 256.0  # train-trn1: 6 x 128 = 768 vCPUs
    outputs = {}
    for fmt in ("table", "json", "markdown", "junit", "sarif"):
        target = tmp_path / f"report.{fmt}"
        outcome = run_cli(["preflight", "--stack", "prod", "--format", fmt, "--output", str(target)])
        assert outcome.code == 1, outcome.err
        assert outcome.err.startswith("BLOCKED: 2 short, 0 unknown")
        outputs[fmt] = target.read_text()
    data = json.loads(outputs["json"])
    short = sorted(c["subject"] for c in data["checks"] if c["status"] == "fail")
    assert short == ["L-2C3B7624 Running On-Demand Trn instances", "pool train-trn1 (trn1.32xlarge)"]
    assert data["summary"]["blocked"] is True and data["summary"]["fail"] == 2
    suites = ET.fromstring(outputs["junit"])
    assert suites.get("failures") == "2" and suites.get("tests") == str(data["summary"]["total"])
    assert "--desired-value 768" in outputs["markdown"] and "| ❌ short |" in outputs["markdown"]
    assert "--desired-value 768" in outputs["table"]
    sarif = json.loads(outputs["sarif"])
    [run] = sarif["runs"]
    errors = [r for r in run["results"] if r["level"] == "error"]
    assert len(errors) == 2
    trn1_line = prod.line_of("node_pools", 4)
    assert {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in errors} == {trn1_line}
    assert run["properties"]["checks"]["fail"] == 2
