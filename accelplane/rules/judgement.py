"""Resources → rules → enforcement levels → waivers: the one evaluation behind every verdict.

`accelplane check` (offline graph, state export or plan), `accelplane verify` (the live view),
`accelplane diff` (both revisions' graphs) and the CrossGuard pack all call `judge()`, so a finding
counts the same way wherever it is found: the same rules, the same `--policy-config` levels (the
CrossGuard `--policy-pack-config` format), the same waivers with the same expiry day.

Verdict: a finding blocks when it is unwaived and mandatory (or advisory under `strict`); an
expired waiver fails the run on its own until it is renewed or removed; an unused waiver is a note.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from accelplane.errors import InputError
from accelplane.input_files import DECLARATION_LIMIT, read_json
from accelplane.rules.enforcement import resolve_levels
from accelplane.rules.engine import evaluate
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import RULES
from accelplane.rules.rule import Enforcement, Finding, Rule, Scope
from accelplane.rules.view import Resource
from accelplane.rules.waivers import WaiverStatus, apply_waivers


@dataclass(frozen=True)
class Policy:
    """How findings count: enforcement level per rule id, the declaration's waivers, and the day
    waivers expire against and lifecycle facts are judged at (None: today)."""

    levels: Mapping[str, str] = field(default_factory=dict)
    waivers: tuple[Any, ...] = ()
    as_of: date | None = None

    @classmethod
    def of(
        cls, *, config: Mapping[str, Any] | None = None, config_source: str = "<policy config>",
        waivers: Iterable[Any] = (), as_of: date | None = None, rules: Iterable[Rule] = RULES,
    ) -> Policy:
        return cls(levels=resolve_levels(rules, config, config_source), waivers=tuple(waivers), as_of=as_of)

    @property
    def today(self) -> date:
        return self.as_of or date.today()


def load_policy_config(path: Path, option: str = "--policy-config") -> dict[str, Any]:
    """A `--policy-pack-config` JSON file (`"all"` and per-rule levels), read bounded."""
    data = read_json(path, limit=DECLARATION_LIMIT, option=option)
    if not isinstance(data, dict):
        raise InputError.single('expected an object mapping rule ids (or "all") to enforcement levels',
                                file=str(path), field=option)
    return data


@dataclass
class Judgement:
    findings: list[Finding]  # every finding, waived ones marked; blocking first
    waivers: list[WaiverStatus]
    rules: tuple[Rule, ...]  # the rules that ran (disabled ones left out)
    levels: Mapping[str, str]
    resources: int
    not_applicable: Counter[str] = field(default_factory=Counter)  # rule id -> resources with unknown values
    seconds: dict[str, float] = field(default_factory=dict)  # rule id -> evaluation time

    def blocking(self, strict: bool = False) -> list[Finding]:
        return [f for f in self.findings
                if not f.waived and (f.enforcement is Enforcement.mandatory or strict)]

    @property
    def failures(self) -> list[str]:
        """Blocking problems that are not findings: expired waivers."""
        return [f"{_waiver(s)} expired on {s.expires.isoformat()}: renew it with a new reason or fix the finding"
                for s in self.waivers if s.state == "expired"]

    @property
    def notes(self) -> list[str]:
        """Shown, never blocking: unused waivers, rules that could not judge unknown values."""
        notes = [f"{_waiver(s)} matches no finding: remove it" for s in self.waivers if s.state == "unused"]
        skipped = sum(self.not_applicable.values())
        if skipped:
            notes.append(f"{skipped} rule evaluations skipped: values unknown until apply "
                         f"({', '.join(sorted(self.not_applicable))})")
        return notes

    def passed(self, strict: bool = False) -> bool:
        return not self.blocking(strict) and not self.failures


def _waiver(status: WaiverStatus) -> str:
    return f"waivers[{status.index}] ({status.rule} on {status.resource}, owner {status.owner})"


def judge(
    resources: Sequence[Resource],
    *,
    policy: Policy | None = None,
    stack: str | None = None,
    environment: str | None = None,
    rules: Iterable[Rule] = RULES,
    scopes: Iterable[Scope] = (Scope.resource, Scope.stack),
) -> Judgement:
    """Every rule not disabled by the policy's levels over `resources`, with its waivers applied."""
    policy = policy or Policy()
    rules = tuple(rules)
    graph = ReferenceGraph(resources, stack=stack, environment=environment, as_of=policy.as_of)
    evaluation = evaluate(graph, rules, levels=policy.levels, scopes=scopes)
    findings, statuses = apply_waivers(evaluation.findings, policy.waivers, policy.today)
    return Judgement(
        findings=findings,
        waivers=statuses,
        rules=tuple(r for r in rules if r.id not in evaluation.disabled),
        levels={r.id: policy.levels.get(r.id, r.enforcement.value) for r in rules},
        resources=len(graph),
        not_applicable=evaluation.not_applicable,
        seconds=evaluation.seconds,
    )
