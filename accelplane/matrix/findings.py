"""Findings and the report `check()` returns.

A finding is one rule's judgement of one pair (or set) of versions: its rule id, a verdict, a
message naming the versions in conflict and the fix, and the public source of the fact used.
The report's verdict is the worst finding's (compatible < warn < conditional < incompatible).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    COMPATIBLE = "compatible"
    WARN = "warn"
    CONDITIONAL = "conditional"
    INCOMPATIBLE = "incompatible"

    @property
    def rank(self) -> int:
        return _RANK[self]

    @classmethod
    def worst(cls, verdicts: list[Verdict]) -> Verdict:
        return max(verdicts, key=lambda v: v.rank, default=cls.COMPATIBLE)


_RANK = {Verdict.COMPATIBLE: 0, Verdict.WARN: 1, Verdict.CONDITIONAL: 2, Verdict.INCOMPATIBLE: 3}


@dataclass(frozen=True)
class MatrixFinding:
    """One rule's judgement. `fields` names the stack keys involved (for pointing at a file line);
    `not_in_matrix` marks findings about versions the data does not cover."""

    rule: str
    verdict: Verdict
    message: str
    source: str
    fields: tuple[str, ...] = ()
    not_in_matrix: bool = False

    def to_json(self) -> dict[str, str]:
        return {
            "rule": self.rule,
            "verdict": self.verdict.value,
            "message": self.message,
            "source": self.source,
        }


@dataclass(frozen=True)
class MatrixReport:
    """What `check()` returns: the overall verdict and every finding, worst first."""

    verdict: Verdict
    findings: list[MatrixFinding]
    stack: dict[str, str] = field(default_factory=dict)
    as_of: dt.date | None = None
    strict: bool = False
    origin: str = "<input>"

    @property
    def blocking(self) -> bool:
        """True when the stack must not be rolled out (exit code 1 of `matrix check`)."""
        return self.verdict is Verdict.INCOMPATIBLE

    def problems(self) -> list[MatrixFinding]:
        """Findings worse than compatible."""
        return [finding for finding in self.findings if finding.verdict is not Verdict.COMPATIBLE]

    def to_json(self) -> dict[str, Any]:
        """The `matrix check --json` document (docs/design.md): {"verdict", "findings": [...]}; a dict,
        ready for `json.dumps`. `to_json_text()` gives the text."""
        return {"verdict": self.verdict.value, "findings": [finding.to_json() for finding in self.findings]}

    def to_json_text(self, indent: int | None = 2) -> str:
        # Exactly the design contract's two keys (docs/design.md): no tool header here.
        return json.dumps(self.to_json(), indent=indent)
