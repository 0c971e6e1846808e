"""`accelplane:preflight: true`: the Pulumi program runs the stack's cloud preflight before any
resource is registered and stops `pulumi preview`/`up` with the report when something does not fit;
the offline engine has no credentials, skips it and says so."""

from __future__ import annotations

import asyncio
import json
import runpy
from pathlib import Path

import pulumi
import pytest
import yaml
from pulumi.runtime.stack import run_pulumi_func

from accelplane.clouds.aws.mocks import AwsLikeMocks
from accelplane.config.loader import PLATFORM_KEY, StackConfig
from accelplane.engine.graph import OfflineGraph
from accelplane.engine.offline import _RecordingMonitor
from accelplane.preflight.gate import preflight_refusal
from tests.preflight.conftest import Account
from tests.support.cli_contract import run_cli

ENTRY = Path(__file__).resolve().parents[2] / "__main__.py"


@pytest.fixture
def connected(account: Account, monkeypatch: pytest.MonkeyPatch) -> Account:
    import accelplane.clouds.aws.verify.reader as reader

    monkeypatch.setattr(reader, "aws_clients", lambda *_args, **_kwargs: account.clients)
    return account


def _run_program(stack: StackConfig, config: dict[str, str]) -> OfflineGraph:
    platform = yaml.safe_load(stack.path.read_text())["config"][PLATFORM_KEY]
    graph = OfflineGraph(stack=stack.stack)
    mocks = AwsLikeMocks(region=platform["region"])
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        pulumi.runtime.settings.reset_options()
        pulumi.runtime.set_all_config({PLATFORM_KEY: json.dumps(platform), **config})
        pulumi.runtime.set_mocks(mocks, project="accelplane", stack=stack.stack, preview=True,
                                 monitor=_RecordingMonitor(mocks, graph))
        loop.run_until_complete(run_pulumi_func(lambda: runpy.run_path(str(ENTRY), run_name="__main__")))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    return graph


def test_the_program_stops_before_registering_anything(connected: Account, prod: StackConfig) -> None:
    connected.quotas["L-2C3B7624"] = 256.0
    with pytest.raises(pulumi.RunError) as raised:
        _run_program(prod, {"accelplane:preflight": "true"})
    text = str(raised.value)
    assert "accelplane preflight (accelplane:preflight is set) stopped the run" in text
    assert "--quota-code L-2C3B7624 --desired-value 768" in text


def test_a_stack_that_fits_builds(connected: Account, fitting_prod: StackConfig) -> None:
    graph = _run_program(fitting_prod, {"accelplane:preflight": "true"})
    assert any(r.type == "aws:eks/cluster:Cluster" for r in graph.resources)
    assert "ec2.DescribeInstanceTypeOfferings" in connected.clients.calls.to_json()["by_operation"]


def test_without_the_key_the_program_makes_no_live_call(connected: Account, prod: StackConfig) -> None:
    _run_program(prod, {})
    assert connected.clients.calls.to_json()["total"] == 0


def test_unknown_checks_pass_where_the_stack_allows_them(connected: Account, fitting_prod: StackConfig) -> None:
    connected.reservations["cr-0a1b2c3d4e5f60718"] = ("RequestLimitExceeded", "Request limit exceeded.")
    assert preflight_refusal(fitting_prod.platform, "prod") is not None
    assert preflight_refusal(fitting_prod.platform, "prod", allow_unknown=True) is None


def test_missing_credentials_stop_the_program_with_the_reason(monkeypatch: pytest.MonkeyPatch,
                                                              prod: StackConfig) -> None:
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(variable, raising=False)
    refusal = preflight_refusal(prod.platform, "prod")
    assert refusal is not None and "could not run" in refusal and "no AWS credentials" in refusal


def test_the_offline_preview_says_it_skips_preflight(tmp_path: Path) -> None:
    from tests.support.stack_files import stack_text

    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(stack_text("dev").replace("config:\n", "config:\n  accelplane:preflight: true\n", 1))
    outcome = run_cli(["preview", "--stack-file", str(path)])
    assert "the offline engine has no credentials and skips it" in outcome.out, outcome.err
    assert "skips it" not in run_cli(["preview", "--stack", "dev"]).out
