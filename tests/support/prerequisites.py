"""The one place a test decides what a missing prerequisite (root, a Debian package, a pinned tool)
does to it: it FAILS, naming what to install, on a developer's machine exactly as in CI, so a local
green is CI's green (`make test` installs the prerequisites as root first). Only a test marked
`@pytest.mark.optional(reason=...)` skips instead, and the run's summary lists each optional test
that did not run with both reasons (docs/conventions.md 26)."""

from __future__ import annotations

from typing import NoReturn

import pytest

# The test being set up or run (tests/conftest.py keeps it), so a fixture that finds a prerequisite
# missing knows whether its test may skip.
current: pytest.Item | None = None


def missing(reason: str) -> NoReturn:
    """Fail the test naming what is missing; skip it only where it is marked optional."""
    marker = current.get_closest_marker("optional") if current is not None else None
    if marker is not None:
        why = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
        pytest.skip(f"optional ({why}): {reason}")
    pytest.fail(f"prerequisite missing: {reason} (as root, `make test` installs them; or mark the test "
                "@pytest.mark.optional(reason=...))", pytrace=False)
