"""Every command reads its input files bounded: what is not a regular file is refused before a byte
is read (a FIFO would block, /dev/zero never ends), sizes are capped with the limit named, bytes
must be UTF-8, and nesting is bounded — each an exit 2 naming the file, never a traceback or hang."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from accelplane import input_files
from accelplane.cli import main
from accelplane.errors import InputError


def _stack_file_args(path: Path) -> list[str]:
    return ["check", "--stack-file", str(path)]


# Every option that takes a file, as a command line around the path.
COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "check --state": lambda p: ["check", "--state", str(p)],
    "check --plan": lambda p: ["check", "--plan", str(p)],
    "check --policy-config": lambda p: ["check", "--stack", "dev", "--policy-config", str(p)],
    "check --stack-file": _stack_file_args,
    "preview --stack-file": lambda p: ["preview", "--stack-file", str(p)],
    "matrix check": lambda p: ["matrix", "check", str(p)],
    "nodes validate --stack-file": lambda p: ["nodes", "validate", "--stack-file", str(p)],
    "diff --policy-config": lambda p: ["diff", "--stack", "dev", "--base", "HEAD", "--policy-config", str(p)],
}


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    fifo = tmp_path / "input"
    os.mkfifo(fifo)
    code, err = _run(capsys, COMMANDS[command](fifo))
    assert code == 2 and f"error: {fifo}" in err and "is a FIFO (named pipe): expected a regular file" in err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_symlink_to_a_device_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    link = tmp_path / "input.json"
    link.symlink_to("/dev/zero")
    code, err = _run(capsys, COMMANDS[command](link))
    assert code == 2 and f"error: {link}" in err and "is a character device: expected a regular file" in err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_random_bytes_are_refused_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = tmp_path / "input.yaml"
    path.write_bytes(b"config:\n  a: 1\n\xff\xfe\x00garbage\n")
    code, err = _run(capsys, COMMANDS[command](path))
    assert code == 2 and f"error: {path}:3:" in err and "not UTF-8 text (byte 0xff at offset 15)" in err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, err = _run(capsys, COMMANDS[command](tmp_path))
    assert code == 2 and "is a directory: expected a regular file" in err


def test_a_declaration_over_the_limit_is_refused_naming_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "Pulumi.big.yaml"
    with path.open("wb") as handle:
        handle.truncate(input_files.DECLARATION_LIMIT + 1)  # sparse: no 4 MiB written
    code, err = _run(capsys, ["check", "--stack-file", str(path)])
    assert code == 2 and "file is larger than the 4 MiB limit for this input" in err


def test_a_state_over_the_document_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("accelplane.rules.sources.DOCUMENT_LIMIT", 1024)
    path = tmp_path / "state.json"
    path.write_text('{"deployment": {"resources": []}, "pad": "' + "x" * 2000 + '"}')
    code, err = _run(capsys, ["check", "--state", str(path)])
    assert code == 2 and f"{path}: --state: file is larger than the 1024 bytes limit" in err


def test_a_file_growing_past_the_limit_while_read_is_cut_off(tmp_path: Path) -> None:
    """The limit is applied to what is read, not to what `stat` said."""
    path = tmp_path / "growing.json"
    path.write_text("[" + "1," * 100 + "1]")
    with pytest.raises(InputError, match="larger than the 16 bytes limit"):
        input_files.read_bytes(path, limit=16)


@pytest.mark.parametrize("depth", [200, 100_000])
def test_deep_json_is_refused_at_any_depth(tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * depth + "]" * depth)
    code, err = _run(capsys, ["check", "--plan", str(path)])
    assert code == 2 and "JSON nested deeper than 128 levels" in err


def test_nan_and_huge_integers_are_not_json(tmp_path: Path) -> None:
    for text, message in (('{"a": NaN}', "NaN is not a JSON value"), ('{"a": ' + "9" * 5000 + "}", "not valid JSON")):
        with pytest.raises(InputError, match=message):
            input_files.parse_json(text, "x.json")


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"a": 1}')
    assert input_files.read_json(path) == {"a": 1}


def test_nesting_depth_counts_without_recursion() -> None:
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    assert input_files.nesting_depth(deep, stop_after=50) == 51
    assert input_files.nesting_depth({"a": [1, {"b": 2}]}) == 3
