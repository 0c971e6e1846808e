"""A YAML integer too long to print is refused at reading, however it is written (found by tests/fuzz).

Python refuses to build an int from more than 4,300 decimal digits, but builds one from hex, octal,
binary or base-60 text of any length; the first message that showed it (`got ...`, `expected a
string, got int ...`) then raised ValueError: a traceback instead of exit 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.config.yaml_source import MAX_INT_DIGITS, parse_yaml
from accelplane.errors import InputError
from tests.support.stack_files import write_variant

HEX_PAST_THE_LIMIT = "0x" + "f" * 3600  # about 4,335 decimal digits


@pytest.mark.parametrize("text", [HEX_PAST_THE_LIMIT, "0b" + "1" * 15_000, "0" + "7" * 5_200, "1" + ":59" * 3_000,
                                  "9" * 5_000, "-0x" + "f" * 3600])
def test_an_integer_past_the_digit_limit_in_any_base_is_a_marked_error(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_yaml(f"a: 1\nb: {text}\n", "f.yaml")
    assert str(caught.value) == f"error: f.yaml:2: malformed YAML: an integer longer than {MAX_INT_DIGITS} digits"


@pytest.mark.parametrize("text", ["0x_", "0b_"])
def test_an_integer_without_digits_is_a_marked_error_of_its_own(text: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_yaml(f"a: {text}\n", "f.yaml")
    assert str(caught.value).startswith("error: f.yaml:1: malformed YAML: invalid literal for int()")


def test_integers_within_the_limit_read_in_every_base() -> None:
    data = parse_yaml("a: 0x10\nb: 0b101\nc: 017\nd: 190:20:30\ne: 1_000\nf: " + "9" * MAX_INT_DIGITS, "f.yaml").data
    assert data == {"a": 16, "b": 5, "c": 15, "d": 685230, "e": 1000, "f": int("9" * MAX_INT_DIGITS)}


def test_a_hex_integer_past_the_limit_in_a_stack_file_exits_2_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, line = write_variant(tmp_path, "disk_gib: 50", f"disk_gib: {HEX_PAST_THE_LIMIT}")
    assert main(["check", "--stack-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}:{line}: malformed YAML: an integer longer than") and "Traceback" not in err


def test_a_hex_integer_past_the_limit_in_a_matrix_file_exits_2_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "stack.yaml"
    path.write_text(f"accelerator: nvidia-h100\ncuda: {HEX_PAST_THE_LIMIT}\n")
    assert main(["matrix", "check", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {path}:2: malformed YAML: an integer longer than")
