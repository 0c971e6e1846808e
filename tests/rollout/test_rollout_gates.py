"""The gates as pure functions: which verdict wins, and what each gate reads."""

from __future__ import annotations

import pytest

from accelplane.declaration import RolloutGates
from accelplane.rollout.gates import GateState, GateVerdict, judge
from accelplane.rollout.traffic import BackendTraffic

GATES = RolloutGates(window="5m", min_requests=100, max_error_rate=0.02, max_p99_ratio=1.5, max_p99_seconds=1.0)
BASELINE = BackendTraffic(requests=1000, errors=1, p50_seconds=0.1, p99_seconds=0.4)


def _states(canary: BackendTraffic, baseline: BackendTraffic = BASELINE) -> tuple[GateVerdict, dict[str, GateState]]:
    found = judge({"base": baseline, "new": canary}, "base", "new", GATES)
    return found.verdict, {gate.name: gate.state for gate in found.gates}


def test_a_healthy_canary_passes_every_gate() -> None:
    verdict, states = _states(BackendTraffic(500, 2, 0.1, 0.5, throttled=5))
    assert verdict is GateVerdict.passed and set(states.values()) == {GateState.holds}


def test_a_canary_answering_429s_rolls_back_however_healthy_the_rest_looks() -> None:
    found = judge({"base": BASELINE, "new": BackendTraffic(500, 0, 0.05, 0.2, throttled=50)}, "base", "new", GATES)
    assert found.verdict is GateVerdict.rollback  # 10% > 5%, with no 5xx and a fast p99
    assert "canary 429 rate 10.00% > 5.00%" in found.reason and "sheds load" in found.reason
    # At the limit it holds; where the source has no 429 count (CloudWatch) the gate is not judged.
    _, states = _states(BackendTraffic(500, 0, 0.05, 0.2, throttled=25))
    assert states["max_throttled_rate"] is GateState.holds
    verdict, states = _states(BackendTraffic(500, 0, 0.05, 0.2))
    assert verdict is GateVerdict.passed and states["max_throttled_rate"] is GateState.not_judged


@pytest.mark.parametrize(("canary", "failing"), [
    (BackendTraffic(500, 20, 0.1, 0.5), "max_error_rate"),  # 4% > 2%
    (BackendTraffic(500, 0, 0.1, 1.2), "max_p99_seconds"),  # also 3x the baseline
    (BackendTraffic(500, 0, 0.1, 0.7), "max_p99_ratio"),  # 1.75x > 1.5x, under 1s
])
def test_a_failing_gate_rolls_back(canary: BackendTraffic, failing: str) -> None:
    verdict, states = _states(canary)
    assert verdict is GateVerdict.rollback and states[failing] is GateState.fails


def test_too_few_requests_hold_without_judging_the_rest() -> None:
    verdict, states = _states(BackendTraffic(99, 99, 0.1, 9.0))  # all 5xx and slow, but only 99 requests
    assert verdict is GateVerdict.hold and states["min_requests"] is GateState.fails
    assert {states[name] for name in ("max_error_rate", "max_p99_seconds", "max_p99_ratio")} == {GateState.not_judged}


def test_the_ratio_is_not_judged_when_the_baseline_served_nothing() -> None:
    verdict, states = _states(BackendTraffic(500, 0, 0.1, 0.9), BackendTraffic())
    assert verdict is GateVerdict.passed and states["max_p99_ratio"] is GateState.not_judged


def test_no_latency_for_a_busy_canary_holds() -> None:
    verdict, states = _states(BackendTraffic(500, 0, None, None))
    assert verdict is GateVerdict.hold and states["max_p99_seconds"] is GateState.no_data


def test_the_limits_themselves_hold() -> None:
    verdict, _ = _states(BackendTraffic(100, 2, 0.1, 0.6))  # exactly 100 requests, 2%, 1.5x
    assert verdict is GateVerdict.passed
