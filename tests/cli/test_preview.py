"""`accelplane preview`: the plan text, the JSON graph contract, and the matrix verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from accelplane.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_preview_json_follows_the_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "dev.json"
    assert main(["preview", "--stack", "dev", "--json", str(out)]) == 0
    graph = json.loads(out.read_text())
    assert graph["stack"] == "dev"
    resources = graph["resources"]
    assert {"urn", "type", "name", "parent", "inputs"} <= set(resources[0])
    by_name = {r["name"]: r for r in resources}
    node_group = by_name["acme-ml-dev-infer-l4-ng"]
    assert node_group["type"] == "aws:eks/nodeGroup:NodeGroup"
    assert node_group["inputs"]["amiType"] == "AL2023_x86_64_NVIDIA"  # camelCase wire inputs
    assert by_name[node_group["parent"].rsplit("::", 1)[1]]["type"] == "accelplane:aws:AcceleratorNodePool"
    assert all(r["urn"].startswith("urn:pulumi:dev::accelplane::") for r in resources)


def test_preview_prints_tree_counts_and_matrix_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preview", "--stack", "prod"]) == 0
    text = capsys.readouterr().out
    assert "Previewing update (prod)" in text
    assert " +   pulumi:pulumi:Stack" in text
    assert "├─ accelplane:aws:AcceleratorNodePool" in text and "│  ├─ aws:ec2/launchTemplate:LaunchTemplate" in text
    assert "[protect]" in text  # prod buckets, keys and secrets
    assert "       4  aws:kms/key:Key" in text  # EKS secrets, data, secrets, CloudTrail log files
    assert "train-h100       h100-cuda12      nvidia-hgx-h100-8gpu     compatible" in text


def test_preview_exits_1_when_a_profile_is_incompatible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.support.stack_files import write_variant

    # CUDA 13.2 and torch 2.8.0 on the H100 pool: no such torch build, and the AMI's driver 580.105.08
    # runs 13.2 only with the forward-compatibility package.
    path, _ = write_variant(tmp_path, 'cuda: "12.8"\n        cudnn: "9.10.2.21"\n        nccl: "2.27.3"\n'
                            '        nccl_package: nvidia-nccl-cu12\n        torch: "2.8.0"\n        efa_installer',
                            'cuda: "13.2"\n        cudnn: "9.10.2.21"\n        nccl: "2.27.3"\n'
                            '        nccl_package: nvidia-nccl-cu12\n        torch: "2.8.0"\n        efa_installer',
                            stack="prod")
    assert main(["preview", "--stack-file", str(path)]) == 1
    text = capsys.readouterr().out
    assert "train-h100" in text and "incompatible" in text and "13.2" in text


def test_console_script_runs_from_a_fresh_process() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "accelplane", "preview", "--stack", "dev"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "+ " in result.stdout and "to create" in result.stdout


@pytest.mark.parametrize("stack", ["dev", "prod", "lab"])
def test_every_shipped_stack_previews_cleanly(stack: str, capsys: pytest.CaptureFixture[str]) -> None:
    # lab has one zone and no public subnets: the network must not assume subnet pairs.
    assert main(["preview", "--stack", stack]) == 0
    assert "0 invalid" in capsys.readouterr().out


def test_fast_exit_keeps_exit_code_and_flushed_output(tmp_path: Path) -> None:
    # `accelplane.cli.run` leaves with os._exit: nothing written before it may be lost.
    out = tmp_path / "dev.json"
    ok = subprocess.run(
        [sys.executable, "-m", "accelplane", "preview", "--stack", "dev", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0 and ok.stdout.rstrip().endswith("custom resources without a built-in schema")
    assert json.loads(out.read_text())["stack"] == "dev"
    bad = subprocess.run(
        [sys.executable, "-m", "accelplane", "preview", "--stack", "nosuch"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "no stack 'nosuch'" in bad.stderr and "Traceback" not in bad.stderr
