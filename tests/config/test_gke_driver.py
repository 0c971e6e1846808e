"""The driver a GKE GPU pool runs, as the tool tells it.

Seen, moving an H100 service from EKS to GKE: an H100 pool on GKE with `cuda: "13.2"`, `torch:
"2.15.0"` and no driver printed `compatible` (a missing driver was skipped without a word); a typed
`driver: "535.104.05"` was accepted while the plan said `gpuDriverVersion: DEFAULT` and the node
label claimed 535.104.05. Now GKE's own choice refuses a typed driver (tests/config/test_gcp_declaration.py),
`gpu_driver: disabled` makes the typed driver the judged one, and a stack without a driver is
judged unknown on it: a warning, blocking under a strict matrix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelplane.cli import main
from tests.support.stack_files import write_variant

SERVE_PROFILE = ("        description: A3 H100 inference (the rollout's baseline); GKE installs its default driver "
                 "for 1.33\n")
SERVE_POOL = "        software_profile: h100-serve-gke\n        gpu_driver: default\n"


def test_a_pool_that_installs_its_own_driver_is_judged_on_it(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = write_variant(tmp_path, SERVE_PROFILE, SERVE_PROFILE + '        driver: "535.104.05"\n', stack="tpu-prod")
    text = path.read_text()
    assert SERVE_POOL in text
    own_driver = "        software_profile: h100-serve-gke\n        gpu_driver: disabled\n"
    path.write_text(text.replace(SERVE_POOL, own_driver))
    assert main(["check", "--stack-file", str(path), "--format", "json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    messages = [f["message"] for f in findings if f["rule"] == "AP-VER-002" and f["name"] == "acme-tpu-infer-h100-pool"]
    # NVIDIA's table: CUDA 12.8 wants 570.26 or newer; 535 runs it only under minor-version compatibility.
    assert any("driver 535.104.05 is below CUDA 12.8's minimum 570.26" in m for m in messages), messages


def test_a_stack_without_a_driver_is_not_a_silent_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stack = tmp_path / "stack.yaml"
    stack.write_text('accelerator: nvidia-h100\ncuda: "12.8"\ntorch: "2.8.0"\npython: "3.11"\n')
    assert main(["matrix", "check", str(stack), "--json"]) == 0  # a warning does not block
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] != "compatible"
    [finding] = [f for f in report["findings"] if f["rule"] == "nvidia.cuda-driver"]
    assert "no driver in the stack: whether it runs CUDA 12.8 is unknown" in finding["message"]
    assert main(["matrix", "check", str(stack), "--json", "--strict"]) == 1
    strict = json.loads(capsys.readouterr().out)
    assert strict["verdict"] == "incompatible"
