"""Fixtures for `accelplane verify`: fake credentials, moto, and the dev platform created in it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from accelplane.config.loader import StackConfig, load_stack
from accelplane.engine.offline import Graph
from accelplane.verify.clients import AwsClients
from accelplane.verify.declared import DeclaredPlatform, declared_platform
from accelplane.verify.model import VerifyReport
from accelplane.verify.run import VerifyOptions, verify
from tests.verify.moto_platform import MotoPlatform, honour_secure_transport

CHECKPOINT_FILES = {"model.safetensors": b"\x00weights" * 4096, "optimizer.pt": b"\x01state" * 1024}


@pytest.fixture(autouse=True)
def fake_aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Fake credentials only; never a profile, a config file or instance metadata of this machine."""
    for variable in (
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_ENDPOINT_URL",
    ):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")  # a second per test, and no test needs AMIs


@pytest.fixture(scope="session")
def dev_stack() -> StackConfig:
    return load_stack("dev")


@pytest.fixture(scope="session")
def dev_declared(dev_stack: StackConfig, dev_graph: Graph) -> DeclaredPlatform:
    return declared_platform(dev_stack, dev_graph)


@pytest.fixture(scope="session")
def boto_session() -> boto3.Session:
    # One session for all tests: botocore loads its service models once per session.
    return boto3.Session(region_name="us-east-1")


@pytest.fixture
def moto() -> Iterator[None]:
    undo = honour_secure_transport()
    try:
        with mock_aws():
            yield
    finally:
        undo()


@pytest.fixture
def live_dev(moto: None, dev_declared: DeclaredPlatform, boto_session: boto3.Session) -> MotoPlatform:
    """The dev platform as `pulumi up` leaves it, plus what the cluster and the trainer add later."""
    platform = MotoPlatform(dev_declared, session=boto_session).create()
    platform.register_targets()
    platform.write_checkpoint("trainer/", 1200, CHECKPOINT_FILES)
    return platform


@pytest.fixture
def run_verify(dev_stack: StackConfig, dev_graph: Graph, boto_session: boto3.Session) -> Any:
    def run(clients: AwsClients | None = None, **options: Any) -> VerifyReport:
        options.setdefault("probes", 0)
        return verify(
            dev_stack,
            VerifyOptions(**options),
            graph=dev_graph,
            clients=clients or AwsClients("us-east-1", session=boto_session),
        )

    return run


def failures(report: VerifyReport) -> list[tuple[str, str, str | None]]:
    """(check, resource name, property path) of every failed result."""
    return sorted((r.check, r.name, r.path) for r in report.results if r.status.value == "fail")
