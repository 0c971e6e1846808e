"""A file whose name is not UTF-8 is named back, never a UnicodeEncodeError (found by tests/fuzz).

Such a name reaches Python with lone surrogates (os.fsdecode). Error messages show them escaped, as
Python's stderr does, so they print on any stream; reports write the name's bytes back as they were,
also where standard output is strict UTF-8 (a UTF-8 locale, or PYTHONIOENCODING=utf-8:strict).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.errors import InputError


def test_an_error_naming_a_non_utf8_file_prints_on_a_strict_stream(capsys: pytest.CaptureFixture[str]) -> None:
    assert str(InputError.single("file not found", file="m\udcff.yaml")) == "error: m\\udcff.yaml: file not found"
    assert main(["matrix", "check", "m\udcff.yaml"]) == 2  # capsys' stream is strict UTF-8
    assert capsys.readouterr().err == "error: m\\udcff.yaml: file not found\n"


def test_a_report_naming_a_non_utf8_file_prints_its_bytes_on_strict_stdout(tmp_path: Path) -> None:
    name = os.fsdecode(b"m\xff.yaml")
    (tmp_path / name).write_text('accelerator: nvidia-h100\ndriver: "570.172.08"\n')
    result = subprocess.run(
        [sys.executable, "-m", "accelplane", "matrix", "check", name, "--as-of", "2026-12-01"],
        cwd=tmp_path, capture_output=True, check=False, env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert result.stdout.startswith(b"m\xff.yaml: COMPATIBLE")
