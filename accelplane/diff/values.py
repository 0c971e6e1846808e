"""How a changed value is written in the table and Markdown outputs (JSON keeps values as they are)."""

from __future__ import annotations

import json
from typing import Any

from accelplane.diff.plan_diff import ABSENT, SECRET, BackendChange, InputChange

MAX_VALUE = 100


def show(value: Any, secret: bool = False, limit: int = MAX_VALUE) -> str:
    if value is ABSENT:
        return "(none)"
    if secret:
        return SECRET
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def change_line(change: InputChange) -> str:
    """`path: old → new` (`path: + new` when added, `path: - old` when removed)."""
    if change.op == "add":
        return f"{change.path}: + {show(change.new, change.secret)}"
    if change.op == "remove":
        return f"{change.path}: - {show(change.old, change.secret)}"
    return f"{change.path}: {show(change.old, change.secret)} → {show(change.new, change.secret)}"


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
