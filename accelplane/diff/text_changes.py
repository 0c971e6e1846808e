"""How a changed value reads to a reviewer: a lower version flagged, a multi-line text as a line diff."""

from __future__ import annotations

import difflib
import re
from typing import Any

# A version as the stacks and charts write them: 570.133.20, 1.31, v0.14.2, 2.27.3-1, 12.8.
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+(?:[-+~][0-9A-Za-z.+~-]*)?$")


def is_downgrade(old: Any, new: Any) -> bool:
    """Both sides versions and the new one lower (numeric parts compared in order: 1.10 > 1.9)."""
    if not (isinstance(old, str) and isinstance(new, str) and _VERSION.match(old) and _VERSION.match(new)):
        return False
    return _numbers(new) < _numbers(old)


def names_version(path: str) -> bool:
    """An input path that holds a version (`version`, `kubernetesVersion`, `releaseVersion`, a
    `versions.accelplane.io/...` label): only there is a lower value a downgrade (not an IP address)."""
    last = re.split(r"[.\[]", path.replace('"]', ""))[-1].lower()
    return "version" in last or "versions.accelplane.io/" in path


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def is_multiline(old: Any, new: Any, secret: bool = False) -> bool:
    """Text of several lines (a ConfigMap's file, a script, a YAML document): shown as a line diff, not
    as two shortened strings that read the same."""
    return not secret and isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new)


def line_diff(old: str, new: str, context: int = 2) -> list[str]:
    """The changed lines with `context` lines around each change, `-`/`+`/` ` prefixed (hunk headers
    `@@ line N @@` say where)."""
    out: list[str] = []
    before, after = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        out.append(f"@@ line {group[0][3] + 1} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(f"  {line}" for line in before[i1:i2])
                continue
            out.extend(f"- {line}" for line in before[i1:i2])
            out.extend(f"+ {line}" for line in after[j1:j2])
    return out
