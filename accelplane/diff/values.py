"""How a changed value is written in the table and Markdown outputs (JSON keeps values as they are)."""

from __future__ import annotations

import json
from typing import Any

from accelplane.diff.plan_diff import ABSENT, SECRET, BackendChange, InputChange
from accelplane.diff.text_changes import is_downgrade, is_multiline, line_diff, names_version

MAX_VALUE = 100


def show(value: Any, secret: bool = False, limit: int = MAX_VALUE) -> str:
    if value is ABSENT:
        return "(none)"
    if secret:
        return SECRET
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def change_line(change: InputChange) -> str:
    """`path: old → new` (`path: + new` when added, `path: - old` when removed; `(downgrade)` after a
    lower version; a multi-line text says how many lines changed, its lines follow in `change_lines`)."""
    if change.op == "add":
        return f"{change.path}: + {show(change.new, change.secret)}"
    if change.op == "remove":
        return f"{change.path}: - {show(change.old, change.secret)}"
    if is_multiline(change.old, change.new, change.secret):
        diff = line_diff(change.old, change.new)
        changed = sum(1 for line in diff if line[:1] in "+-")
        return f"{change.path}: text changed ({plural(changed, 'line')} differ)"
    text = f"{change.path}: {show(change.old, change.secret)} → {show(change.new, change.secret)}"
    downgrade = not change.secret and names_version(change.path) and is_downgrade(change.old, change.new)
    return text + ("  (downgrade)" if downgrade else "")


def change_lines(change: InputChange, indent: str) -> list[str]:
    """The change's line, then a multi-line text's line diff beneath it."""
    lines = [indent + change_line(change)]
    if change.op == "change" and is_multiline(change.old, change.new, change.secret):
        lines.extend(f"{indent}    {line}" for line in line_diff(change.old, change.new))
    return lines


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def weight_text(weight: tuple[int | None, int | None]) -> str:
    """`5% → 25%`, `95%` (unchanged), `(none) → 5%` (a new backend), `5% → (removed)`."""
    old, new = weight
    if old == new:
        return f"{new}%"
    return f"{'(none)' if old is None else f'{old}%'} → {'(removed)' if new is None else f'{new}%'}"


def pool_text(backend: BackendChange) -> str:
    """The backend's pool, `old → new` when the change moves it."""
    old, new = backend.pool
    return (new or old or "?") if old in (None, new) or new is None else f"{old} → {new}"
