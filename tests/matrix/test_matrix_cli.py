"""`accelplane matrix check|resolve|show`: exit codes, messages, output formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from accelplane.cli import main

GOOD = """\
accelerator: nvidia-hgx-h100-8gpu
instance: p5.48xlarge
driver: "570.172.08"
fabric_manager: "570.172.08"
kernel_module: open
cuda: "12.8"
torch: "2.8.0"
nccl: "2.27.3"
python: "3.11"
"""


def write(tmp_path: Path, text: str, name: str = "stack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_compatible_stack_exits_0_and_prints_findings(tmp_path, capsys) -> None:
    code, out, _ = run(capsys, "matrix", "check", str(write(tmp_path, GOOD)), "--as-of", "2026-12-02")
    assert code == 0
    assert "COMPATIBLE (as of 2026-12-02)" in out and "nvidia.fabric-manager" in out and "source:" in out


def test_incompatible_stack_exits_1(tmp_path, capsys) -> None:
    path = write(tmp_path, GOOD.replace('fabric_manager: "570.172.08"', 'fabric_manager: "570.158.01"'))
    code, out, _ = run(capsys, "matrix", "check", str(path), "--as-of", "2026-12-02")
    assert code == 1 and "INCOMPATIBLE" in out and "570.158.01" in out


def test_conditional_exits_0_but_1_with_strict(tmp_path, capsys) -> None:
    path = write(tmp_path, 'accelerator: nvidia-h100\ndriver: "535.104.05"\ncuda: "12.4"\n')
    assert run(capsys, "matrix", "check", str(path), "--as-of", "2026-01-01")[0] == 0
    code, out, _ = run(capsys, "matrix", "check", str(path), "--as-of", "2026-01-01", "--strict")
    assert code == 1 and "strict" in out


def test_warn_exits_0(tmp_path, capsys) -> None:
    path = write(tmp_path, 'accelerator: nvidia-h100\ndriver: "535.261.03"\n')
    code, out, _ = run(capsys, "matrix", "check", str(path), "--as-of", "2026-12-02")
    assert code == 0 and "WARN" in out


def test_json_output_is_the_contract(tmp_path, capsys) -> None:
    path = write(
        tmp_path, json.dumps({"accelerator": "nvidia-l4", "driver": "470.82.01", "cuda": "12.4"}), "s.json"
    )
    code, out, _ = run(capsys, "matrix", "check", str(path), "--json", "--as-of", "2026-12-02")
    document = json.loads(out)
    assert code == 1 and document["verdict"] == "incompatible"
    assert all(set(f) == {"rule", "verdict", "message", "source"} for f in document["findings"])


def test_as_of_from_the_file_is_used(tmp_path, capsys) -> None:
    path = write(tmp_path, 'accelerator: nvidia-h100\ndriver: "535.261.03"\nas_of: 2026-01-15\n')
    code, out, _ = run(capsys, "matrix", "check", str(path))
    assert code == 0 and "COMPATIBLE (as of 2026-01-15)" in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'accelerator: nvidia-h100\ncuda_version: "12.8"\n',
            ":2: cuda_version: unknown key; did you mean cuda",
        ),
        ('accelerator: nvidia-h100\n\ndriver: "570.x"\n', ":3: driver: malformed version '570.x'"),
        ("accelerator: nvidia-h1000\n", ":1: accelerator: unknown accelerator 'nvidia-h1000'"),
        (
            "accelerator: nvidia-h100\npython: 3.10\n",
            ":2: python: expected a string, got float 3.1; quote it",
        ),
        ("accelerator: nvidia-h100\ncuda: [12.8]\n", ":2: cuda: expected a single value"),
        (
            'accelerator: nvidia-h100\ncuda: "12.8"\ncuda: "12.4"\n',
            ":3: malformed YAML: duplicate key 'cuda' (first on line 2)",
        ),
        ("accelerator: [nvidia-h100\n", ":2: malformed YAML"),
        ("- accelerator: nvidia-h100\n", ":1: expected a flat mapping"),
        ("", ": empty file"),
    ],
)
def test_bad_input_exits_2_naming_file_line_and_key(tmp_path, capsys, text, expected) -> None:
    path = write(tmp_path, text)
    code, out, err = run(capsys, "matrix", "check", str(path))
    assert code == 2, err
    assert f"error: {path}{expected}" in err
    assert "Traceback" not in err and out == ""


def test_missing_file_exits_2(tmp_path, capsys) -> None:
    code, _, err = run(capsys, "matrix", "check", str(tmp_path / "nope.yaml"))
    assert code == 2 and "nope.yaml: file not found" in err


def test_bad_as_of_is_a_usage_error(tmp_path, capsys) -> None:
    code, _, err = run(capsys, "matrix", "check", str(write(tmp_path, GOOD)), "--as-of", "tomorrow")
    assert code == 2 and "YYYY-MM-DD" in err


def test_resolve_prints_a_profile_that_checks_compatible(tmp_path, capsys) -> None:
    code, out, _ = run(
        capsys,
        "matrix",
        "resolve",
        "--accelerator",
        "nvidia-hgx-h100-8gpu",
        "--python",
        "3.11",
        "--as-of",
        "2026-12-02",
    )
    assert code == 0
    profile = yaml.safe_load(out)
    assert profile["accelerator"] == "nvidia-hgx-h100-8gpu" and profile["python"] == "3.11"
    assert all(isinstance(v, str) for v in profile.values())
    path = write(tmp_path, out)
    assert run(capsys, "matrix", "check", str(path), "--as-of", "2026-12-02")[0] == 0


def test_resolve_errors(capsys) -> None:
    code, _, err = run(capsys, "matrix", "resolve", "--accelerator", "nvidia-h1000")
    assert code == 2 and "unknown accelerator" in err and "--accelerator" in err
    code, _, err = run(
        capsys,
        "matrix",
        "resolve",
        "--accelerator",
        "nvidia-v100",
        "--python",
        "3.15",
        "--as-of",
        "2026-12-02",
    )
    assert code == 1 and "no fully compatible profile" in err


@pytest.mark.parametrize(
    "name",
    ["nvidia-l4", "amd-mi300x", "aws-trainium2", "google-tpu-v5p", "intel-gaudi3", "huawei-ascend-910b"],
)
def test_show_prints_tables(capsys, name) -> None:
    code, out, _ = run(capsys, "matrix", "show", "--accelerator", name, "--as-of", "2026-12-02")
    assert code == 0 and name in out and out.count("\n") > 8


def test_show_marks_binary_compatibility_for_nvidia(capsys) -> None:
    code, out, _ = run(capsys, "matrix", "show", "--accelerator", "nvidia-b200", "--as-of", "2026-12-02")
    assert code == 0 and "cu126:no" in out and "cu128:yes" in out and "R535" in out


def test_show_unknown_accelerator_exits_2(capsys) -> None:
    code, _, err = run(capsys, "matrix", "show", "--accelerator", "amd-mi400")
    assert code == 2 and "unknown accelerator" in err


def test_console_entry_point_runs_without_traceback(tmp_path) -> None:
    path = write(tmp_path, "accelerator: nvidia-h100\nbogus: x\n")
    result = subprocess.run(
        [sys.executable, "-m", "accelplane", "matrix", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (
        result.returncode == 2 and "bogus: unknown key" in result.stderr and "Traceback" not in result.stderr
    )
