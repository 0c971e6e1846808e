"""Where a rendered report goes: stdout, or a file with a one-line verdict on stderr."""

from __future__ import annotations

import sys
from pathlib import Path

from accelplane.errors import InputError


def emit(text: str, output: Path | None, verdict: str) -> None:
    """Print `text`, or write it to `output` and print `verdict` (e.g. "PASSED: ...") to stderr."""
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError.single(
            f"cannot write: {error.strerror or error}", file=str(output), field="--output"
        ) from None
    print(f"{verdict}; wrote {output}", file=sys.stderr)
