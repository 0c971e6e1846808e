"""Fixtures for `accelplane verify`: fake credentials, moto, and the dev platform created in it; a
canary variant of dev (two weighted backends on "/" with a rollout, and a second service behind a
path prefix) for the endpoint's routing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import yaml
from moto import mock_aws

from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.verify.declared import aws_declared
from accelplane.clouds.aws.verify.reader import AwsReader
from accelplane.config.loader import StackConfig, load_stack, load_stack_text
from accelplane.config.project import find_project
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.results import VerifyReport
from accelplane.verify.verification import VerifyOptions, verify
from tests.verify.moto_platform import MotoPlatform, fill_eks_gaps, honour_secure_transport
from tests.verify.moto_snapshot import live_platform

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
def dev_declared(dev_stack: StackConfig, dev_graph: OfflineGraph) -> DeclaredPlatform:
    return aws_declared(dev_stack, dev_graph)


@pytest.fixture(scope="session")
def boto_session() -> boto3.Session:
    # One session for all tests: botocore loads its service models once per session.
    return boto3.Session(region_name="us-east-1")


@pytest.fixture
def moto() -> Iterator[None]:
    undo, undo_eks = honour_secure_transport(), fill_eks_gaps()
    try:
        # Lambda without Docker: moto answers an invocation without running the function's code, so
        # RotateSecret runs as on AWS up to what the rotation function itself would write.
        with mock_aws(config={"lambda": {"use_docker": False}}):
            yield
    finally:
        undo_eks()
        undo()


@pytest.fixture
def live_dev(moto: None, dev_declared: DeclaredPlatform, boto_session: boto3.Session) -> MotoPlatform:
    """The dev platform as `pulumi up` leaves it, plus what the cluster and the trainer add later (built once
    per process, a fresh copy per test: tests/verify/moto_snapshot.py)."""
    return live_platform("dev", lambda: _as_running(dev_declared, boto_session))


def _as_running(declared: DeclaredPlatform, session: boto3.Session) -> MotoPlatform:
    """The platform as created, with targets registered and a trainer checkpoint written."""
    platform = MotoPlatform(declared, session=session).create()
    platform.register_targets()
    platform.write_checkpoint("trainer/", 1200, CHECKPOINT_FILES)
    return platform


def _runner(stack: StackConfig, graph: OfflineGraph, session: boto3.Session) -> Callable[..., VerifyReport]:
    def run(clients: AwsClients | None = None, **options: Any) -> VerifyReport:
        options.setdefault("probes", 0)
        return verify(
            stack,
            VerifyOptions(**options),
            graph=graph,
            reader=AwsReader(clients or AwsClients("us-east-1", session=session)),
        )

    return run


@pytest.fixture
def run_verify(dev_stack: StackConfig, dev_graph: OfflineGraph, boto_session: boto3.Session) -> Any:
    return _runner(dev_stack, dev_graph, boto_session)


CANARY_IMAGE = (
    "111122223333.dkr.ecr.us-east-1.amazonaws.com/llm-server-int8@sha256:"
    "2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80912"
)


def canary_text(*, baseline_weight: int = 95, server_prefix: str = "/") -> str:
    """The dev stack file with its server split into two weighted backends (baseline `l4`, canary `l4-int8`,
    a rollout between them) on `server_prefix` and a second exposed service, `embed`, behind `/embed/`."""
    path = find_project(Path(__file__)).stack_file("dev")
    document = yaml.safe_load(Path(path).read_text())
    platform = document["config"]["accelplane:platform"]
    [server] = platform["kubernetes"]["inference_services"]
    backend = {k: server.pop(k) for k in ("node_pool", "image", "accelerators_per_replica", "cpu", "memory",
                                          "autoscaling")}
    server["backends"] = [
        {"name": "l4", **backend, "weight": baseline_weight},
        {"name": "l4-int8", **backend, "image": CANARY_IMAGE, "weight": 100 - baseline_weight},
    ]
    server["rollout"] = {"baseline": "l4", "canary": "l4-int8", "steps": [5, 25, 50, 100], "metrics": "cloudwatch"}
    if server_prefix != "/":
        server["path_prefix"] = server_prefix
    platform["kubernetes"]["inference_services"].append(
        {"name": "embed", "workload": "server", "path_prefix": "/embed/", **backend}
    )
    return yaml.safe_dump(document, sort_keys=False)


@pytest.fixture(scope="session")
def canary_stack() -> StackConfig:
    return load_stack_text(canary_text(), path="Pulumi.dev.yaml", stack="dev")


@pytest.fixture(scope="session")
def canary_graph(canary_stack: StackConfig) -> OfflineGraph:
    return offline_graph(canary_stack)


@pytest.fixture(scope="session")
def canary_declared(canary_stack: StackConfig, canary_graph: OfflineGraph) -> DeclaredPlatform:
    return aws_declared(canary_stack, canary_graph)


@pytest.fixture
def live_canary(moto: None, canary_declared: DeclaredPlatform, boto_session: boto3.Session) -> MotoPlatform:
    """The canary variant as `pulumi up` leaves it, with targets in every backend's target group (built once
    per process, as live_dev)."""
    return live_platform("canary", lambda: _as_running(canary_declared, boto_session))


@pytest.fixture
def run_verify_canary(canary_stack: StackConfig, canary_graph: OfflineGraph, boto_session: boto3.Session) -> Any:
    return _runner(canary_stack, canary_graph, boto_session)


def failures(report: VerifyReport) -> list[tuple[str, str, str | None]]:
    """(check, resource name, property path) of every failed result."""
    return sorted((r.check, r.name, r.path) for r in report.results if r.status.value == "fail")
