"""Helpers to derive broken stack files from the real ones, for rejection tests."""

from __future__ import annotations

from pathlib import Path

from accelplane.config.loader import StackConfig, load_stack_file
from accelplane.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
STACKS_DIR = ROOT / "stacks"  # the example stacks of this checkout


def stack_text(stack: str = "dev") -> str:
    return (STACKS_DIR / f"Pulumi.{stack}.yaml").read_text()


def write_variant(tmp_path: Path, old: str, new: str, stack: str = "dev") -> tuple[Path, int]:
    """Write the stack with `old` replaced by `new` once; return the path and the 1-based line of the edit."""
    text = stack_text(stack)
    assert text.count(old) >= 1, f"{old!r} not in Pulumi.{stack}.yaml"
    index = text.index(old)
    line = text[:index].count("\n") + 1
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(text[:index] + new + text[index + len(old) :])
    return path, line


def line_of(path: Path, needle: str) -> int:
    text = path.read_text()
    return text[: text.index(needle)].count("\n") + 1


def edit_problems(tmp_path: Path, *edits: tuple[str, str], stack: str = "prod") -> list[tuple[str, str]]:
    """(field, message) of each problem loading the edited example stack finds; [] when it loads."""
    try:
        edited_stack(tmp_path, *edits, stack=stack)
    except InputError as error:
        return [(str(p.field), p.message) for p in error.problems]
    return []


def edited_stack(tmp_path: Path, *edits: tuple[str, str], stack: str = "prod") -> StackConfig:
    """The example stack with each `old -> new` edit made once, written to `tmp_path` and loaded."""
    text = stack_text(stack)
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(text)
    return load_stack_file(path, stack=stack)
