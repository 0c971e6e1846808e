"""The result every formatter renders: items (findings), the rules that ran, and the verdict."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from accelplane.tool import version

SEVERITIES = ("critical", "high", "medium", "low")


def counted(count: int, noun: str) -> str:
    """`1 finding`, `2 findings`: a count with its noun in the right number."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


@dataclass(frozen=True)
class RuleInfo:
    id: str
    name: str
    description: str
    severity: str
    enforcement: str  # the level in force for this run
    remediation: str
    group: str  # rule family; the JUnit suite and a SARIF tag
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class Item:
    """One finding: which rule, on what, what is wrong, and whether it blocks."""

    rule: str
    severity: str
    enforcement: str
    urn: str
    type: str
    name: str
    message: str
    remediation: str
    waived: bool = False
    blocking: bool = False
    waiver_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "enforcement": self.enforcement, "urn": self.urn,
                "type": self.type, "name": self.name, "message": self.message, "remediation": self.remediation,
                "waived": self.waived}


@dataclass
class Report:
    tool: str  # e.g. "accelplane check"
    subject: str  # what was judged, e.g. "stack prod" or "state prod.json"
    items: list[Item]
    rules: list[RuleInfo]
    resources: int = 0
    strict: bool = False
    artifact: str | None = None  # file the findings point at (the stack file, state or plan)
    failures: list[str] = field(default_factory=list)  # blocking problems that are not findings (expired waivers)
    notes: list[str] = field(default_factory=list)  # shown, never blocking (unused waivers, skipped rules)
    waivers: list[dict[str, Any]] = field(default_factory=list)
    # URN -> line of `artifact` that declares the resource (SARIF regions); 1 when unknown.
    lines: dict[str, int] = field(default_factory=dict)
    # (rule id, URN) -> the line whose change fixes that finding, where it is not the resource's own
    # (rules with a fix field: engine/provenance.py `fix_lines`).
    fix_lines: dict[tuple[str, str], int] = field(default_factory=dict)
    started: datetime | None = None  # when the run began (JUnit `timestamp`)
    seconds: float | None = None  # how long it took (JUnit `time`)
    rule_seconds: dict[str, float] = field(default_factory=dict)  # rule id -> its share of `seconds`
    version: str = field(default_factory=version)  # the tool's (SARIF driver version)

    def line_of(self, item: Item) -> int:
        """The line of `artifact` a finding points at: where its fix goes, else its resource's; 1 when unknown."""
        return self.fix_lines.get((item.rule, item.urn)) or self.lines.get(item.urn, 1)

    def verdict_line(self) -> str:
        """`PASSED: 0 blocking findings, 3 findings (...)` or, with a blocking problem that is no finding
        (an expired waiver), `FAILED: 0 blocking findings, 1 failure: <why>`: never "FAILED: 0 blocking"
        alone."""
        summary = self.summary()
        line = (f"{'PASSED' if self.passed else 'FAILED'}: {counted(summary['blocking'], 'blocking finding')}, "
                f"{counted(summary['findings'], 'finding')}")
        if self.failures:
            line += f", {counted(len(self.failures), 'failure')}: " + "; ".join(self.failures)
        return line

    @property
    def blocking(self) -> list[Item]:
        return [item for item in self.items if item.blocking]

    @property
    def passed(self) -> bool:
        return not self.blocking and not self.failures

    def summary(self) -> dict[str, Any]:
        open_items = [i for i in self.items if not i.waived]
        severity = Counter(i.severity for i in open_items)
        enforcement = Counter(i.enforcement for i in open_items)
        return {
            "subject": self.subject,
            "passed": self.passed,
            "strict": self.strict,
            "resources": self.resources,
            "rules": len(self.rules),
            "findings": len(self.items),
            "blocking": len(self.blocking),
            "waived": sum(1 for i in self.items if i.waived),
            "by_severity": {s: severity.get(s, 0) for s in SEVERITIES},
            "by_enforcement": {e: enforcement.get(e, 0) for e in ("mandatory", "advisory")},
            "failures": list(self.failures),
            "notes": list(self.notes),
            "waivers": list(self.waivers),
        }
