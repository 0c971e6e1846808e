"""Run `accelplane` in process and hold it to the command-line contract.

The contract (README "Commands"): exit 0, 1 or 2, as the input allows; never a traceback; on exit 2 stderr starts with
`error: ` (after argparse's usage line, for a usage error) and the message names the input (a file,
or the option it came from).
An exception escaping `main` is what a user would see as a traceback, so it is left to propagate:
hypothesis then shrinks the input that raised it.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from hypothesis import event

from accelplane.cli import main


@dataclass(frozen=True)
class Outcome:
    argv: tuple[str, ...]
    code: int
    out: str
    err: str


def run_cli(argv: Sequence[str]) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return Outcome(tuple(argv), code, out.getvalue(), err.getvalue())


ANY_VERDICT = (0, 1, 2)


def assert_contract(outcome: Outcome, *, names: Iterable[str], expect: Collection[int]) -> None:
    """Exit code one of `expect`; no traceback; on 2 an `error: ` message naming one of `names`.
    `expect` is what the input allows: (2,) for an input that is bad whatever else was drawn,
    ANY_VERDICT only where the test cannot know (a mutated file may still be a valid one)."""
    said = f"argv: {list(outcome.argv)!r}\nexit: {outcome.code}\nstderr:\n{outcome.err[-3000:]}"
    assert outcome.code in expect, f"expected exit {sorted(expect)}\n{said}"
    assert "Traceback (most recent call last)" not in outcome.err + outcome.out, said
    if outcome.code != 2:
        return
    assert _message(outcome.err).startswith("error: "), f"exit 2, but stderr does not start with `error: `\n{said}"
    # A name that is not UTF-8 (lone surrogates) is shown escaped, as Python's stderr shows it.
    shown = {name: name.encode("utf-8", "backslashreplace").decode("utf-8") for name in names if name}
    named = [name for name, escaped in shown.items() if name in outcome.err or escaped in outcome.err]
    assert named, f"exit 2, but the message names none of {sorted(set(names))!r}\n{said}"


def _message(err: str) -> str:
    """stderr without the usage argparse prints before its own message (`usage: ` and indented lines)."""
    lines = err.splitlines(keepends=True)
    if lines and lines[0].startswith("usage: "):
        lines.pop(0)
        while lines and lines[0].startswith(" "):
            lines.pop(0)
    return "".join(lines)


def run_and_check(argv: Sequence[str], *, names: Iterable[str], expect: Collection[int]) -> Outcome:
    """Run and assert the contract; the exit code is a hypothesis event (`--hypothesis-show-statistics`
    shows how many draws got past validation)."""
    outcome = run_cli(argv)
    event(f"{argv[0]}: exit {outcome.code}")
    assert_contract(outcome, names=names, expect=expect)
    return outcome
