"""Write a migration's new `weight` (and `since`) into its stack file, changing only those values:
comments, order and layout stay, and the file is replaced at once (a reader never sees half of it).
`rewritten` makes the new text (refusing a file it cannot edit) before anything changes anywhere;
`replace` writes it, once the DNS change (with `--apply`) has gone through.

Both keys are block-style lines directly under `accelplane:migration:`; a key not written yet is added
after `steps:` at the same indentation.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from accelplane.errors import InputError
from accelplane.migration.stack import MigrationStack


def rewritten(stack: MigrationStack, weight: int, since: str) -> str:
    lines = stack.path.read_text().splitlines(keepends=True)
    steps_line = stack.line_of("steps")
    if steps_line is None or not re.match(r"^\s*steps:", lines[steps_line - 1]):
        raise InputError.single("expected `steps:` as a block-style key under accelplane:migration to write the "
                                "weight beside it", file=str(stack.path), line=steps_line, field="steps")
    indent = re.match(r"^\s*", lines[steps_line - 1]).group(0)  # type: ignore[union-attr]
    for key, value in (("since", f'"{since}"'), ("weight", str(weight))):
        pattern = re.compile(rf"^{indent}{key}:\s*[^#\n]*?(\s*#.*)?$")
        at = next((i for i, line in enumerate(lines) if pattern.match(line.rstrip("\n"))), None)
        if at is None:
            lines.insert(steps_line, f"{indent}{key}: {value}\n")
        else:
            comment = pattern.match(lines[at].rstrip("\n")).group(1) or ""  # type: ignore[union-attr]
            lines[at] = f"{indent}{key}: {value}{comment}\n"
    return "".join(lines)


def replace(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.chmod(temporary, path.stat().st_mode & 0o777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
