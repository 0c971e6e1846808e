"""Fixtures for the version-matrix tests: a fixed date and a judge that returns one rule's verdict."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping

import pytest

from accelplane.matrix import MatrixReport, Verdict, check

AS_OF = dt.date(2026, 12, 2)  # the day the matrix data was last checked against its sources


class Judged:
    """A report plus helpers to read one rule's findings."""

    def __init__(self, report: MatrixReport) -> None:
        self.report = report

    def findings(self, rule: str) -> list:
        return [f for f in self.report.findings if f.rule == rule]

    def verdict(self, rule: str) -> Verdict:
        found = self.findings(rule)
        assert found, f"rule {rule} produced no finding; findings: {self.dump()}"
        return Verdict.worst([f.verdict for f in found])

    def message(self, rule: str) -> str:
        return " | ".join(f.message for f in self.findings(rule))

    def dump(self) -> str:
        return "\n".join(f"{f.verdict.value} {f.rule}: {f.message}" for f in self.report.findings)


@pytest.fixture
def judge() -> Callable[..., Judged]:
    def run(stack: Mapping[str, object], **kwargs: object) -> Judged:
        kwargs.setdefault("as_of", AS_OF)
        return Judged(check(stack, **kwargs))  # type: ignore[arg-type]

    return run
