"""`did you mean …?` for every closed vocabulary a user types into: the nearest few names, never a
dump of all of them (a stack key, an accelerator, a TPU topology, a matrix key, a rule id)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def nearest(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The few choices closest to `word` (spelling first, then a choice contained in it:
    `cuda_version` -> cuda)."""
    options = sorted(set(choices))
    close = difflib.get_close_matches(word, options, n=n, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(word.lower().replace("_", "-"), options, n=n, cutoff=0.6)
    if not close:
        close = sorted((c for c in options if len(c) > 2 and c in word), key=len, reverse=True)[:2]
    return close


def did_you_mean(word: str, choices: Iterable[str], n: int = 3) -> str:
    """`; did you mean a or b?`, or "" when nothing is close."""
    close = nearest(word, choices, n)
    return f"; did you mean {' or '.join(close)}?" if close else ""
