"""Evaluate rules over a graph: the one loop both `accelplane check` and the benchmarks use.

A rule touching an unknown value (`UnknownValue`) is recorded as not applicable to that resource,
as CrossGuard does during a preview.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import RULES
from accelplane.rules.rule import About, Enforcement, Finding, Rule, Scope
from accelplane.rules.view import UnknownValue


@dataclass
class Evaluation:
    findings: list[Finding]
    rules: tuple[Rule, ...]
    resources: int
    not_applicable: Counter[str] = field(default_factory=Counter)  # rule id -> resources skipped (unknowns)
    disabled: tuple[str, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)  # rule id -> time it took (JUnit `time`)


def run_rule(rule: Rule, graph: ReferenceGraph, enforcement: Enforcement | None = None) -> tuple[list[Finding], int]:
    """(findings, resources the rule could not judge) for one rule over the graph."""
    level = enforcement or rule.enforcement
    findings: list[Finding] = []
    skipped = 0
    for type_token in rule.resource_types:
        for resource in graph.of_type(type_token):
            try:
                messages = list(rule.check(resource, graph))
            except UnknownValue:
                skipped += 1
                continue
            for message in messages:
                subject = message.resource if isinstance(message, About) else resource
                text = message.message if isinstance(message, About) else message
                findings.append(Finding(rule=rule, urn=subject.urn, type=subject.type, name=subject.name,
                                        message=text, enforcement=level))
    return findings, skipped


def evaluate(
    graph: ReferenceGraph,
    rules: Iterable[Rule] | None = None,
    *,
    levels: Mapping[str, str] | None = None,
    scopes: Iterable[Scope] = (Scope.resource, Scope.stack),
) -> Evaluation:
    """Run every rule (default: the registry) not `disabled` in `levels` (rule id -> level)."""
    if rules is None:

        rules = RULES
    rules = tuple(rules)
    levels = levels or {}
    wanted = set(scopes)
    findings: list[Finding] = []
    not_applicable: Counter[str] = Counter()
    disabled = []
    seconds: dict[str, float] = {}
    for rule in rules:
        level = levels.get(rule.id, rule.enforcement.value)
        if level == "disabled":
            disabled.append(rule.id)
            continue
        if rule.scope not in wanted:
            continue
        started = time.perf_counter()
        found, skipped = run_rule(rule, graph, Enforcement(level))
        seconds[rule.id] = time.perf_counter() - started
        findings.extend(found)
        if skipped:
            not_applicable[rule.id] += skipped
    findings.sort(key=sort_key)
    return Evaluation(findings=findings, rules=rules, resources=len(graph), not_applicable=not_applicable,
                      disabled=tuple(disabled), seconds=seconds)


def sort_key(finding: Finding) -> tuple[int, int, str, str, str]:
    return (
        0 if finding.enforcement is Enforcement.mandatory else 1,
        -finding.severity.rank,
        finding.rule.id,
        finding.name,
        finding.message,
    )
