"""The rollout gates as pure functions of the canary's and the baseline's traffic.

Which verdict wins, in order:

1. too few canary requests (`min_requests`) → **hold**: no verdict on a handful of requests, and
   the other gates are shown but not judged;
2. any gate failing (5xx rate, 429 rate, p99 in seconds, p99 relative to the baseline) → **rollback**:
   a canary answering many 429s sheds load, so a low 5xx rate there is no sign of health;
3. a gate without data (no latency for the canary) → **hold**;
4. otherwise → **pass** (the caller still waits for the bake time).

The ratio gate is not judged when the baseline served nothing in the window: there is no latency to
compare with, which is not the canary's fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from accelplane.declaration import RolloutGates
from accelplane.rollout.traffic import BackendTraffic, Traffic


class GateState(StrEnum):
    holds = "holds"
    fails = "fails"
    no_data = "no data"  # the canary has traffic but the source has no value (hold)
    not_judged = "not judged"  # nothing to judge against (the baseline idle), or too few requests


class GateVerdict(StrEnum):
    passed = "pass"
    hold = "hold"
    rollback = "rollback"


@dataclass(frozen=True)
class Gate:
    name: str  # the RolloutGates field it reads
    state: GateState
    observed: float | None
    limit: float
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"gate": self.name, "state": self.state.value, "observed": self.observed, "limit": self.limit,
                "detail": self.detail}


@dataclass(frozen=True)
class GateJudgement:
    gates: tuple[Gate, ...]
    verdict: GateVerdict
    reason: str


def judge(traffic: Traffic, baseline: str, canary: str, gates: RolloutGates) -> GateJudgement:
    ours = traffic.get(canary, BackendTraffic())
    theirs = traffic.get(baseline, BackendTraffic())
    enough = ours.requests >= gates.min_requests
    volume = Gate(
        "min_requests", GateState.holds if enough else GateState.fails, ours.requests, gates.min_requests,
        f"canary {canary!r} served {ours.requests:.0f} requests in the window, "
        f"{'at least' if enough else 'fewer than'} {gates.min_requests}",
    )
    found = (volume, _error_rate(ours, gates, enough), _throttled(ours, gates, enough), _p99(ours, gates, enough),
             _p99_ratio(ours, theirs, baseline, gates, enough))
    if not enough:
        return GateJudgement(found, GateVerdict.hold, volume.detail)
    failed = [gate for gate in found if gate.state is GateState.fails]
    if failed:
        return GateJudgement(found, GateVerdict.rollback, "; ".join(gate.detail for gate in failed))
    missing = [gate for gate in found if gate.state is GateState.no_data]
    if missing:
        return GateJudgement(found, GateVerdict.hold, "; ".join(gate.detail for gate in missing))
    return GateJudgement(found, GateVerdict.passed, "every gate holds")


def _error_rate(ours: BackendTraffic, gates: RolloutGates, enough: bool) -> Gate:
    rate = ours.error_rate
    if not enough or rate is None:
        return Gate("max_error_rate", GateState.not_judged, rate, gates.max_error_rate, "not judged: too few requests")
    holds = rate <= gates.max_error_rate
    return Gate("max_error_rate", GateState.holds if holds else GateState.fails, rate, gates.max_error_rate,
                f"canary 5xx rate {rate:.2%} {'≤' if holds else '>'} {gates.max_error_rate:.2%}")


def _throttled(ours: BackendTraffic, gates: RolloutGates, enough: bool) -> Gate:
    rate = ours.throttled_rate
    limit = gates.max_throttled_rate
    if ours.throttled is None:
        return Gate("max_throttled_rate", GateState.not_judged, None, limit,
                    "not judged: the metrics source does not count 429 answers per backend")
    if not enough or rate is None:
        return Gate("max_throttled_rate", GateState.not_judged, rate, limit, "not judged: too few requests")
    holds = rate <= limit
    detail = f"canary 429 rate {rate:.2%} {'≤' if holds else '>'} {limit:.2%}"
    if not holds:
        detail += " (it sheds load: its low 5xx rate and latency describe only the requests it accepted)"
    return Gate("max_throttled_rate", GateState.holds if holds else GateState.fails, rate, limit, detail)


def _p99(ours: BackendTraffic, gates: RolloutGates, enough: bool) -> Gate:
    p99 = ours.p99_seconds
    if not enough:
        return Gate("max_p99_seconds", GateState.not_judged, p99, gates.max_p99_seconds, "not judged: too few requests")
    if p99 is None:
        return Gate("max_p99_seconds", GateState.no_data, None, gates.max_p99_seconds,
                    "no p99 latency for the canary in the window")
    holds = p99 <= gates.max_p99_seconds
    return Gate("max_p99_seconds", GateState.holds if holds else GateState.fails, p99, gates.max_p99_seconds,
                f"canary p99 {p99:.3f}s {'≤' if holds else '>'} {gates.max_p99_seconds:g}s")


def _p99_ratio(ours: BackendTraffic, theirs: BackendTraffic, baseline: str, gates: RolloutGates,
               enough: bool) -> Gate:
    limit = gates.max_p99_ratio
    if not enough:
        return Gate("max_p99_ratio", GateState.not_judged, None, limit, "not judged: too few requests")
    if theirs.requests <= 0 or theirs.p99_seconds is None:
        return Gate("max_p99_ratio", GateState.not_judged, None, limit,
                    f"not judged: the baseline {baseline!r} served no requests in the window")
    if ours.p99_seconds is None:
        return Gate("max_p99_ratio", GateState.no_data, None, limit, "no p99 latency for the canary in the window")
    allowed = limit * theirs.p99_seconds
    ratio = ours.p99_seconds / theirs.p99_seconds if theirs.p99_seconds > 0 else None
    holds = ours.p99_seconds <= allowed
    shown = f"{ratio:.2f}x" if ratio is not None else f"{ours.p99_seconds:.3f}s against 0s"
    return Gate("max_p99_ratio", GateState.holds if holds else GateState.fails, ratio, limit,
                f"canary p99 is {shown} the baseline's ({theirs.p99_seconds:.3f}s), "
                f"{'within' if holds else 'over'} {limit:g}x")
