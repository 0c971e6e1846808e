"""No test waits on the wall clock: a `sleep` in tests/ is a poll step of at most 50 ms (a test may
wait on a condition with a deadline), never a stand-in for something slow. A slow answer, a bake
window or an expiry is made on an injected clock instead (e.g. rollout.parity.performance.clock)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LONGEST_POLL = 0.05


def _sleeps(source: str) -> list[tuple[int, float | None]]:
    """(line, seconds) of every sleep(...) call; seconds None where it is not a literal number."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name != "sleep":
            continue
        argument = node.args[0]
        literal = isinstance(argument, ast.Constant) and isinstance(argument.value, int | float)
        seconds = argument.value if literal else None
        found.append((node.lineno, seconds))
    return found


def test_the_scanner_finds_a_long_sleep_and_a_computed_one() -> None:
    assert _sleeps("import time\ntime.sleep(0.3)\nsleep(delay)\ntime.sleep(0.01)\n") == [(2, 0.3), (3, None), (4, 0.01)]


def test_no_sleep_in_the_tests_is_longer_than_a_poll_step() -> None:
    offending = []
    for path in sorted(TESTS.rglob("*.py")):
        if ".cache" in path.parts or "__pycache__" in path.parts:
            continue
        for line, seconds in _sleeps(path.read_text()):
            # Literal lengths only: a computed one (a fake's own `sleep` that records backoffs) is read
            # in review, as is a delay passed to a server as data.
            if seconds is not None and seconds > LONGEST_POLL:
                offending.append(f"{path.relative_to(TESTS.parent)}:{line}: sleep({seconds})")
    assert not offending, "tests wait on the wall clock:\n" + "\n".join(offending)
