"""Habits a command-line user expects: `--version`, a quiet end when the reader closes the pipe, the
rules listed and shown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from accelplane.cli import main, version

ROOT = Path(__file__).resolve().parents[2]


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"accelplane {version()}" and version() != "0+unknown"


@pytest.mark.parametrize("argv", [["preview", "--stack", "dev"], ["matrix", "show", "--accelerator", "nvidia-h100"]])
def test_a_reader_that_stops_early_ends_the_command_quietly(argv: list[str]) -> None:
    """`accelplane preview --stack dev | head -1`: no BrokenPipeError traceback."""
    process = subprocess.Popen([sys.executable, "-m", "accelplane", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # what `head -1` does once it has its line
    err = process.stderr.read().decode()
    process.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert process.returncode in (0, -13), process.returncode  # done, or ended by SIGPIPE like `yes | head`


def test_rules_list_names_every_rule_and_show_finds_one_by_id_old_id_or_slug(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "list", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == 101 and {"id", "severity", "checks", "why", "fix", "sources"} <= set(listed[0])
    for key in ("AP-GTAG-001", "AP-TAG-004", "gcp-required-labels"):
        assert main(["rules", "show", key, "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["id"] == "AP-GTAG-001"
    assert main(["rules", "show", "AP-IAM-001"]) == 0
    text = capsys.readouterr().out
    assert "checks:  Checks whether an IAM identity policy allows every action" in text and "fix:" in text


def test_an_unknown_rule_is_bad_input_with_the_nearest_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "show", "AP-IAM-0001"]) == 2
    err = capsys.readouterr().err
    assert "no rule 'AP-IAM-0001'; did you mean AP-IAM-001" in err and "Traceback" not in err
