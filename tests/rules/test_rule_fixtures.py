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


def test_failing_fixtures_trip_no_other_rule_by_accident_of_shape() -> None:
    """Fixtures are realistic: every resource a failing fixture declares is one the rules understand
    (no rule raises on them)."""
    for rule_id, case in CASES.items():
        graph = ReferenceGraph(case.failing, environment=case.environment)
        for other in RULES:
            run_rule(other, graph)  # must not raise
        assert rule_id
