"""Every rule passes its passing fixture and fails its failing fixture, on the resource it names."""

from __future__ import annotations

import pytest

from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import RULES
from tests.rules.all_cases import CASES

RULE_IDS = [rule.id for rule in RULES]


@pytest.fixture(params=RULE_IDS)
def rule(request: pytest.FixtureRequest):
    return next(r for r in RULES if r.id == request.param)


def test_rule_is_silent_on_its_passing_fixture(rule) -> None:
    case = CASES[rule.id]
    findings, skipped = run_rule(rule, ReferenceGraph(case.passing, environment=case.environment))
    assert findings == [], f"{rule.id}: {[f.message for f in findings]}"
    assert skipped == 0


def test_rule_fires_on_its_failing_fixture(rule) -> None:
    case = CASES[rule.id]
    findings, _ = run_rule(rule, ReferenceGraph(case.failing, environment=case.environment))
    assert findings, f"{rule.id} found nothing in its failing fixture"
    assert any(case.expect in f.message for f in findings), f"{rule.id}: {[f.message for f in findings]}"
    names = {f.name for f in findings}
    assert names == {case.target, *case.also}, f"{rule.id}: findings on {sorted(names)}"
    assert all(f.rule is rule for f in findings)


def _others(resources, environment, rule_id: str) -> set[tuple[str, str, str]]:
    graph = ReferenceGraph(resources, environment=environment)
    return {(other.id, f.name, f.message) for other in RULES if other.id != rule_id
            for f in run_rule(other, graph)[0]}


def test_each_failing_fixture_trips_only_its_rule(rule) -> None:
    """What the failing fixture adds to its passing twin is its own rule's problem: any other rule
    that fires on the failing fixture and not on the passing one must be a declared overlap
    (`Case.also_trips`), and every declared overlap must still happen."""
    case = CASES[rule.id]
    added = _others(case.failing, case.environment, rule.id) - _others(case.passing, case.environment, rule.id)
    assert {other for other, _, _ in added} == set(case.also_trips), f"{rule.id}: {sorted(added)}"
