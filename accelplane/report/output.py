"""Where a rendered report goes: stdout, or a file with a one-line verdict on stderr.

`-` as a file name is standard output, as in every Unix tool (`--output -`, `preview --json -`):
what the command writes then goes there alone, so it pipes into `jq`, and its other words go to
standard error.
"""

from __future__ import annotations

import sys
from pathlib import Path

from accelplane.errors import InputError

STDOUT_NAME = "-"


def artifact_path(path: Path) -> str:
    """A report's artifact as a reader finds it: relative to the current directory where it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def to_stdout(output: Path | None) -> bool:
    """True when `output` means standard output: no file given, or `-`."""
    return output is None or str(output) == STDOUT_NAME


def emit(text: str, output: Path | None, verdict: str) -> None:
    """Print `text`, or write it to `output` and print `verdict` (e.g. "PASSED: ...") to stderr."""
    if output is None or to_stdout(output):  # (None spelt out: the type checker narrows on it)
        sys.stdout.write(text)
        return
    write_file(text, output, "--output")
    print(f"{verdict}; wrote {output}", file=sys.stderr)


def write_file(text: str, output: Path, option: str) -> None:
    """Write `text` to `output`; a file that cannot be written is bad input naming the option."""
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError.single(f"cannot write: {error.strerror or error}", file=str(output), field=option) from None
