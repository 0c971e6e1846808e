"""`--option=--` passes the value "--" to the option (found by tests/fuzz).

argparse before Python 3.12.3 stripped it and stored an empty list (python/cpython#109475): `matrix
show --accelerator=--` and `check --stack=--` ended in a TypeError traceback instead of exit 2.
"""

from __future__ import annotations

import pytest

from accelplane.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["matrix", "show", "--accelerator=--"], "error: matrix show: --accelerator: unknown accelerator '--'"),
        (["matrix", "resolve", "--accelerator=nvidia-h100", "--python=--"], "--python: malformed version '--'"),
        (["check", "--stack=--"], "--stack: no stack '--'"),
        (["check", "--format=--"], "argument --format: invalid choice: '--'"),
        (["diff", "--stack=dev", "--base=--"], "--base: not a git revision: '--'"),
    ],
)
def test_a_double_dash_option_value_is_judged_as_the_value(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_double_dash_still_ends_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "check", "--", "--no-such-file"]) == 2
    assert "error: --no-such-file: file not found" in capsys.readouterr().err
