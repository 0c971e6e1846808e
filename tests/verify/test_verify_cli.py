"""`accelplane verify` end to end: the CLI in a subprocess against a moto server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from moto.server import ThreadedMotoServer

from accelplane.cli import main
from accelplane.verify.declared import DeclaredPlatform
from tests.support.stack_files import ROOT as PROJECT_ROOT
from tests.verify.conftest import CHECKPOINT_FILES
from tests.verify.moto_platform import MotoPlatform, fill_eks_gaps, honour_secure_transport


@pytest.fixture(scope="module")
def moto_server() -> Iterator[str]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    undo = honour_secure_transport()  # the server runs in this process: same moto backends
    undo_eks = fill_eks_gaps()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        undo_eks()
        undo()
        server.stop()


@pytest.fixture
def served_dev(moto_server: str, dev_declared: DeclaredPlatform, boto_session: Any) -> MotoPlatform:
    urllib.request.urlopen(urllib.request.Request(f"{moto_server}/moto-api/reset", method="POST"), timeout=10)
    platform = MotoPlatform(dev_declared, endpoint_url=moto_server, session=boto_session).create()
    platform.register_targets()
    platform.write_checkpoint("trainer/", 1200, CHECKPOINT_FILES)
    return platform


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
    )
    return subprocess.run(
        [sys.executable, "-m", "accelplane", "verify", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT_ROOT,
        timeout=300,
        check=False,
    )


def test_cli_passes_on_the_declared_platform_then_fails_on_drift(
    served_dev: MotoPlatform, moto_server: str, tmp_path: Path
) -> None:
    clean = cli(
        "--stack",
        "dev",
        "--endpoint-url",
        moto_server,
        "--probes",
        "0",
        "--format",
        "json",
        "--checkpoint-max-age",
        "1h",
    )

    assert clean.returncode == 0, clean.stderr + clean.stdout[-2000:]
    report = json.loads(clean.stdout)
    # The live platform raises only the advice the declaration raises: dev's hand-rotated token never rotates.
    assert report["summary"]["passed"] is True
    assert [(f["rule"], f["name"], f["enforcement"]) for f in report["findings"]] == [
        ("AP-SM-003", "acme-ml-dev-secrets-hf-token", "advisory")]
    assert report["api_calls"]["total"] == sum(report["api_calls"]["by_operation"].values()) > 30
    statuses = {c["check"]: c["status"] for c in report["checks"] if c["check"].startswith("checkpoint.")}
    assert statuses == {"checkpoint.present": "pass", "checkpoint.age": "pass", "checkpoint.integrity": "pass"}

    served_dev.client("ec2").authorize_security_group_ingress(
        GroupId=served_dev.group_id("inference"),
        IpPermissions=[{"IpProtocol": "tcp", "FromPort": 8000, "ToPort": 8000, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}],
    )
    junit = tmp_path / "verify.xml"
    drifted = cli(
        "--stack", "dev", "--endpoint-url", moto_server, "--probes", "0", "--format", "junit", "--output", str(junit)
    )

    assert drifted.returncode == 1, drifted.stderr
    assert drifted.stderr.startswith("FAILED:")
    suites = ET.parse(junit).getroot()
    failed = [
        (case.get("name"), case.find("failure").get("message"))  # type: ignore[union-attr]
        for case in suites.iter("testcase")
        if case.find("failure") is not None
    ]
    assert any(
        name.startswith("drift.unexpected")
        and "a rule of acme-ml-dev-sg-inference" in message
        and "from 0.0.0.0/0" in message
        for name, message in failed
    ), failed
    assert any(name.startswith("AP-NET-001") for name, _ in failed), failed  # world ingress


def test_cli_table_names_the_drift(served_dev: MotoPlatform, moto_server: str) -> None:
    served_dev.client("kms").disable_key_rotation(KeyId=served_dev.key_id("eks"))

    result = cli("--stack", "dev", "--endpoint-url", moto_server, "--probes", "0", "--checkpoint-drill", "off")

    assert result.returncode == 1
    assert "drift.changed" in result.stdout and "acme-ml-dev-eks-key" in result.stdout
    assert "enableKeyRotation: declared True, live False" in result.stdout
    assert "AP-KMS-001" in result.stdout
    lines = result.stdout.strip().splitlines()
    assert lines[0] == f"accelplane verify: stack dev — account 123456789012, region us-east-1, endpoint {moto_server}"
    assert lines[-1].startswith("FAILED: 2 failed, ") and lines[-1].endswith(" checks)")


def test_cli_on_an_undeployed_stack_reports_one_finding(
    moto_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urllib.request.urlopen(urllib.request.Request(f"{moto_server}/moto-api/reset", method="POST"), timeout=10)
    junit = tmp_path / "verify.xml"

    code = main(
        ["verify", "--stack", "dev", "--endpoint-url", moto_server, "--probes", "0", "--format", "junit",
         "--output", str(junit)]
    )

    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err == f"FAILED: 1 failed, 0 warnings, 0 skipped, 0 passed (1 check); wrote {junit}\n"
    suites = ET.parse(junit).getroot()
    assert (suites.get("tests"), suites.get("failures"), suites.get("skipped")) == ("1", "1", "0")
    [failure] = suites.iter("failure")
    assert failure.get("message") == (
        "stack dev not found in account 123456789012 region us-east-1: nothing of it is deployed there "
        "(is this the right account/region? has `pulumi up` run?)"
    )
    properties = {p.get("name"): p.get("value") for p in suites.iter("property")}
    assert properties == {"stack": "dev", "account": "123456789012", "region": "us-east-1", "endpoint": moto_server}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_endpoint_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--stack", "dev", "--endpoint-url", f"http://127.0.0.1:{_closed_port()}"])

    assert code == 2
    assert "--endpoint-url: cannot reach AWS" in capsys.readouterr().err


def test_missing_credentials_are_bad_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")

    code = main(["verify", "--stack", "dev", "--endpoint-url", f"http://127.0.0.1:{_closed_port()}"])

    assert code == 2
    assert "credentials: no AWS credentials" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--stack", "nope"], "no stack 'nope'"),
        (["--stack", "dev", "--checkpoint-max-age", "soon"], "expected a duration"),
        (["--stack", "dev", "--checkpoint-max-age", "9" * 40 + "d"], "expected a duration of at most 999,999,999 days"),
        (["--stack", "dev", "--probes", "-1"], "expected 0 or more"),
        (["--stack", "dev", "--ca-bundle", "/nonexistent/ca.pem"], "--ca-bundle: no such file"),
    ],
)
def test_bad_arguments_exit_2_with_the_field(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", *args]) == 2
    assert message in capsys.readouterr().err
