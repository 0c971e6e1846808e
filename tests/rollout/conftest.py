"""Fixtures for `accelplane rollout`: a stack file of our own per test, a real Prometheus (one per
session), onnxruntime model servers for parity (one per session), AWS isolation, and an in-process
CLI runner."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from accelplane.cli import main
from tests.support.models.bigram import build as build_bigram
from tests.support.models.classifier import build
from tests.support.models.running import model_servers
from tests.support.prerequisites import missing
from tests.support.prometheus.server import Prometheus, find_binary

FIXTURE = Path(__file__).parent / "fixtures" / "Pulumi.canary.yaml"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_real_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, profile, config file or instance metadata of this machine reach a test."""
    for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                     "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL", "ACCELPLANE_PROMETHEUS_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")


@pytest.fixture
def fake_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")


def stack_text(service: str = "server", **replace: str) -> str:
    """The fixture stack with the service renamed (one Prometheus serves every test, so each test's
    series are its own) and any other exact text replaced."""
    text = FIXTURE.read_text()
    text = text.replace("        - name: server\n          workload: server\n",
                        f"        - name: {service}\n          workload: server\n")
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


def write_stack(directory: Path, service: str = "server", *, text: str | None = None, **replace: str) -> Path:
    path = directory / "Pulumi.canary.yaml"
    path.write_text(text if text is not None else stack_text(service, **replace))
    return path


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def rollout(capsys: pytest.CaptureFixture[str]) -> object:
    """`rollout("advance", "--stack-file", path, ...)` → Result, run in-process like the console script."""

    def run(*argv: str | Path) -> Result:
        capsys.readouterr()
        code = main(["rollout", *map(str, argv)])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err, captured.err
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture(scope="session")
def metrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    """A real Prometheus holding no series, for commands that must reach one but judge no traffic
    (the GKE route tests); tests/rollout/test_rollout_prometheus.py records its own series."""
    binary = find_binary()
    if binary is None:
        missing("the prometheus binary is not installed (Debian: apt-get install prometheus; "
                "tests/support/ansible/install_prereqs.sh installs it)")
    server = Prometheus(binary, tmp_path_factory.mktemp("prometheus"), [])
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The classifier (Open Inference Protocol) per variant: name -> base URL."""
    yield from model_servers(tmp_path_factory.mktemp("models"), build, {
        "baseline": "fp32", "faithful": "fp16", "broken": "broken"})


@pytest.fixture(scope="session")
def text_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The next-word model (OpenAI completions, greedy) per variant: name -> base URL."""
    yield from model_servers(tmp_path_factory.mktemp("text-models"), build_bigram, {
        "baseline": "fp32", "faithful": "fp16", "broken": "broken"})
