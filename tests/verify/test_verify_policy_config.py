"""`verify` judges live state through the same evaluation as `check`: the `--policy-config` levels
apply to the rules it runs on what is live, and a bad policy config is refused before any AWS call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accelplane.cli import main
from tests.verify.moto_platform import MotoPlatform


def _kms_rule(report: Any) -> list[str]:
    return [r.status.value for r in report.results if r.check == "AP-KMS-001"]


def test_policy_levels_apply_to_the_rules_on_live_state(live_dev: MotoPlatform, run_verify: Any) -> None:
    live_dev.client("kms").disable_key_rotation(KeyId=live_dev.key_id("data"))
    assert _kms_rule(run_verify()) == ["fail"]
    assert _kms_rule(run_verify(policy_levels={"AP-KMS-001": "advisory"})) == ["warn"]
    assert _kms_rule(run_verify(policy_levels={"AP-KMS-001": "disabled"})) == []


def test_a_bad_policy_config_is_refused_before_any_aws_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "policy.json"
    config.write_text('{"AP-KMS-001": "sometimes"}')
    # An endpoint nobody listens on: reaching AWS would be a different error.
    code = main(["verify", "--stack", "dev", "--policy-config", str(config), "--endpoint-url", "http://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2 and f"{config}: AP-KMS-001: enforcement level must be one of" in err


def test_verify_reads_a_stack_file_from_anywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text("config:\n  accelplane:platform:\n    nmae: typo\n")
    assert main(["verify", "--stack-file", str(path)]) == 2
    assert f"error: {path}:3: accelplane:platform.nmae: unknown key" in capsys.readouterr().err


def test_verify_on_a_google_cloud_stack_refuses_the_aws_connection_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", "--stack", "tpu-dev", "--endpoint-url", "http://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert ("--endpoint-url: not used on Google Cloud (AWS only): give --api-endpoint SERVICE=URL per service; "
            "credentials come from Application Default Credentials") in err
    assert "Traceback" not in err


def test_verify_on_aws_refuses_the_google_connection_options(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--stack", "dev", "--impersonate-service-account", "x@p.iam.gserviceaccount.com"])
    assert code == 2
    err = capsys.readouterr().err
    assert "accelplane verify: --impersonate-service-account: not used on AWS (Google Cloud only): give " \
        "--endpoint-url and --profile" in err
