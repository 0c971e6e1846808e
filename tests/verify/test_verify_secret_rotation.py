"""`verify` of a secret's rotation (issue 49): the dev stack with its Hugging Face token rotating every 30
days, created in moto (RotateSecret with the rotation function, moto's Lambda run without Docker); the
rotation as ListSecrets reports it (RotationEnabled, RotationLambdaARN, RotationRules) is compared with
the declaration, and rotation cancelled or changed by hand is drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest

from accelplane.clouds.aws.verify.declared import aws_declared
from accelplane.config.loader import StackConfig, load_stack_text
from accelplane.config.project import find_project
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.results import CheckId
from tests.verify.conftest import _as_running, _runner, failures
from tests.verify.moto_platform import MotoPlatform
from tests.verify.moto_snapshot import live_platform
from tests.verify.test_verify_iam_policy import documented_actions, iam_action

FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:acme-rotate-hf-token"
ROTATION = "acme-ml-dev-secrets-hf-token-rotation"
INVOKE = "acme-ml-dev-secrets-hf-token-rotation-invoke"  # Secrets Manager may invoke the function


def _rotating_dev_text() -> str:
    text = Path(find_project(Path(__file__)).stack_file("dev")).read_text()
    old = "      - name: hf-token\n"
    assert text.count(old) == 1
    return text.replace(old, f"{old}        rotation_days: 30\n        rotation_function: {FUNCTION}\n")


@pytest.fixture(scope="module")
def rotating_stack() -> StackConfig:
    return load_stack_text(_rotating_dev_text(), path="Pulumi.dev.yaml", stack="dev")


@pytest.fixture(scope="module")
def rotating_graph(rotating_stack: StackConfig) -> OfflineGraph:
    return offline_graph(rotating_stack)


@pytest.fixture(scope="module")
def rotating_declared(rotating_stack: StackConfig, rotating_graph: OfflineGraph) -> DeclaredPlatform:
    return aws_declared(rotating_stack, rotating_graph)


@pytest.fixture
def live(moto: None, rotating_declared: DeclaredPlatform, boto_session: boto3.Session) -> MotoPlatform:
    return live_platform("rotating-dev", lambda: _as_running(rotating_declared, boto_session))


@pytest.fixture
def run(rotating_stack: StackConfig, rotating_graph: OfflineGraph, boto_session: boto3.Session) -> Any:
    return _runner(rotating_stack, rotating_graph, boto_session)


def _rotation_results(report: Any) -> list[Any]:
    return [r for r in report.results if r.name == ROTATION]


def test_the_declared_rotation_verifies_clean(live: MotoPlatform, run: Any) -> None:
    report = run()
    assert failures(report) == []
    assert [r.check for r in _rotation_results(report)] == [CheckId.drift_matched]
    assert _rotation_results(report)[0].status.value == "pass"
    # Read, so not in the coverage list of what this command does not verify.
    assert not [r for r in report.results if r.check == CheckId.coverage and "secretRotation" in r.message]


def test_rotation_cancelled_by_hand_is_missing_with_why(live: MotoPlatform, run: Any) -> None:
    secrets = live.client("secretsmanager")
    secrets.cancel_rotate_secret(SecretId=live.secret_arn("hf-token"))
    report = run()
    [missing] = [r for r in _rotation_results(report) if r.check == CheckId.drift_missing]
    assert missing.status.value == "fail"
    assert "rotation of acme-ml-dev-secrets/hf-token-" in missing.message
    assert "is off (RotationEnabled false" in missing.message


def test_a_rotation_period_changed_by_hand_is_drift(live: MotoPlatform, run: Any) -> None:
    # `aws secretsmanager rotate-secret --rotation-rules AutomaticallyAfterDays=90` (moto's Lambda answers
    # the invocation without Docker).
    live.client("secretsmanager").rotate_secret(SecretId=live.secret_arn("hf-token"), RotationLambdaARN=FUNCTION,
                                                RotationRules={"AutomaticallyAfterDays": 90})
    report = run()
    assert (CheckId.drift_changed, ROTATION, "rotationRules.automaticallyAfterDays") in failures(report)


def _invoke_statement(live: MotoPlatform) -> str:
    policy = json.loads(live.client("lambda").get_policy(FunctionName=FUNCTION)["Policy"])
    [statement] = policy["Statement"]
    return statement["Sid"]


def test_the_rotation_function_s_permission_verifies_clean(live: MotoPlatform, run: Any) -> None:
    report = run()
    invoke = [r for r in report.results if r.name == INVOKE]
    assert [(r.check, r.status.value) for r in invoke] == [(CheckId.drift_matched, "pass")]
    called = {iam_action(op) for op in report.api_calls["by_operation"] if op != "sts.GetCallerIdentity"}
    assert "lambda:GetPolicy" in called and called - documented_actions() == set()


def test_the_permission_removed_from_the_function_is_missing(live: MotoPlatform, run: Any) -> None:
    # `aws lambda remove-permission`: Secrets Manager can no longer invoke it, and the next rotation fails.
    live.client("lambda").remove_permission(FunctionName=FUNCTION, StatementId=_invoke_statement(live))
    report = run()
    [missing] = [r for r in report.results if r.name == INVOKE and r.check == CheckId.drift_missing]
    assert "has no resource policy" in missing.message


def test_the_permission_widened_to_every_secret_is_drift(live: MotoPlatform, run: Any) -> None:
    # The statement replaced by one without SourceArn: Secrets Manager may invoke it for any secret.
    lam = live.client("lambda")
    lam.remove_permission(FunctionName=FUNCTION, StatementId=_invoke_statement(live))
    lam.add_permission(FunctionName=FUNCTION, StatementId="any-secret", Action="lambda:InvokeFunction",
                       Principal="secretsmanager.amazonaws.com")
    report = run()
    assert (CheckId.drift_changed, INVOKE, "sourceArn") in failures(report)


def test_a_second_statement_for_every_secret_is_unexpected(live: MotoPlatform, run: Any) -> None:
    live.client("lambda").add_permission(FunctionName=FUNCTION, StatementId="any-secret",
                                         Action="lambda:InvokeFunction", Principal="secretsmanager.amazonaws.com")
    report = run()
    [extra] = [r for r in report.results if r.check == CheckId.drift_unexpected and "any-secret" in (r.name or "")]
    assert "for any secret (no SourceArn)" in extra.message
