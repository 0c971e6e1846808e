"""The one place a test decides that a missing prerequisite (root, a Debian package, a pinned tool)
skips it: for a developer without it the test skips with the reason; in CI (`CI` set to 1, true or
yes, as `.ci/run` and hosted runners set it) it fails, because there a skip hides breakage
(docs/conventions.md 26)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(reason: str) -> NoReturn:
    """Skip for a developer without the prerequisite; fail in CI."""
    if in_ci():
        pytest.fail(f"prerequisite missing in CI: {reason}", pytrace=False)
    pytest.skip(reason)
