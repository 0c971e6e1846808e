"""Run `accelplane diff` once through its CLI and keep the `PlanDiff` it built, so a test renders the
other formats from the same run (each run previews both revisions: the formats only read the result)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from accelplane.diff.plan_diff import PlanDiff


@contextmanager
def keeping_diffs() -> Iterator[list[PlanDiff]]:
    """The diffs `diff_stack` returns while the block runs, in order."""
    import accelplane.diff as diff_package

    seen: list[PlanDiff] = []
    real = diff_package.diff_stack

    def spy(*args: Any, **kwargs: Any) -> PlanDiff:
        seen.append(real(*args, **kwargs))
        return seen[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(diff_package, "diff_stack", spy)
        yield seen
