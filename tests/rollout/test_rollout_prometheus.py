"""`accelplane rollout` against a real Prometheus (Debian's package) over recorded series: the
canary walks 5 → 25 → 50 → 100 over bake windows, an error spike rolls back (exit 1), too little
traffic holds (exit 0, file unchanged), status in every format.

The series are what the model servers' /metrics would have exposed (request histograms per
service, backend and status code, one sample a second), written as OpenMetrics and backfilled with
`promtool tsdb create-blocks-from openmetrics`; each command is judged at an explicit `--now`, so
the gates' 5s window and the bake are read at chosen moments instead of waited for. Each test has
its own service, so one Prometheus serves the module.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from accelplane.config.loader import load_stack_file
from tests.rollout.conftest import write_stack
from tests.support.prometheus.server import Prometheus, backfilled

# The servers' request histogram and its `le` bounds (+Inf implied), as the fixture stack's
# `prometheus: {histogram: http_request_duration_seconds, status_label: code}` names it.
HISTOGRAM = "http_request_duration_seconds"
BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# The moment every command is judged at (a fixed past time: no wall clock), and the recorded span.
NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
RECORDED_FROM, RECORDED_UNTIL = NOW - timedelta(seconds=60), NOW + timedelta(seconds=30)

# service -> backend -> (requests a second, latency in seconds, share answered 5xx, share answered 429)
TRAFFIC: dict[str, dict[str, tuple[float, float, float, float]]] = {
    "walk": {"l4": (40, 0.08, 0, 0), "l40s": (40, 0.06, 0, 0)},
    "spike": {"l4": (40, 0.08, 0, 0), "l40s": (40, 0.08, 0.3, 0)},
    "shedding": {"l4": (40, 0.08, 0, 0), "l40s": (40, 0.08, 0, 0.3)},
    "quiet": {"l4": (40, 0.08, 0, 0), "l40s": (1, 0.08, 1.0, 0)},  # failing, but too few requests to judge
    # The canary's p99 lands in the 0.5 s bucket, the baseline's in the 0.1 s one: 3.75x, over the ratio 3.
    "shown": {"l4": (30, 0.08, 0, 0), "l40s": (30, 0.3, 0, 0)},
}


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _series(service: str, backend: str, code: str, per_second: float, latency: float) -> list[str]:
    """One histogram's samples, a second apart: cumulative counts as a server's counters grow."""
    labels = f'service="{service}",backend="{backend}",code="{code}"'
    start, seconds = int(RECORDED_FROM.timestamp()), int((RECORDED_UNTIL - RECORDED_FROM).total_seconds())
    lines: list[str] = []
    for bound in (*BUCKETS, float("inf")):
        le = "+Inf" if bound == float("inf") else repr(bound)
        inside = latency <= bound
        lines += [f'{HISTOGRAM}_bucket{{{labels},le="{le}"}} {per_second * t if inside else 0:g} {start + t}'
                  for t in range(seconds + 1)]
    lines += [f"{HISTOGRAM}_sum{{{labels}}} {per_second * t * latency:g} {start + t}" for t in range(seconds + 1)]
    lines += [f"{HISTOGRAM}_count{{{labels}}} {per_second * t:g} {start + t}" for t in range(seconds + 1)]
    return lines


def _openmetrics() -> str:
    lines = [f"# TYPE {HISTOGRAM} histogram"]
    for service, backends in TRAFFIC.items():
        for backend, (per_second, latency, errors, throttled) in backends.items():
            ok = per_second * (1 - errors - throttled)
            for code, rate, seconds in (("200", ok, latency), ("500", per_second * errors, latency),
                                        ("429", per_second * throttled, 0.001)):
                if rate:
                    lines += _series(service, backend, code, rate, seconds)
    return "\n".join(lines) + "\n# EOF\n"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    with backfilled(tmp_path_factory.mktemp("rollout-prometheus"), _openmetrics()) as server:
        yield server


def _service(path: Path, service: str) -> Any:
    stack = load_stack_file(path)
    [found] = [s for s in stack.platform.kubernetes.inference_services if s.name == service]  # type: ignore[union-attr]
    return found


def _weights(path: Path, service: str) -> dict[str, int]:
    return {b.name: b.weight for b in _service(path, service).serving_backends}


def _since(path: Path, service: str) -> str | None:
    stack = load_stack_file(path)
    [found] = [s for s in stack.platform.kubernetes.inference_services if s.name == service]  # type: ignore[union-attr]
    return found.rollout.since if found.rollout else None


def test_a_healthy_canary_walks_every_step_over_bake_windows(
    tmp_path: Path, prometheus: Prometheus, rollout: Any
) -> None:
    service = "walk"
    path = write_stack(tmp_path, service, **{"bake: 2s": "bake: 3s"})
    args = ("--stack-file", path, "--service", service, "--prometheus-url", prometheus.url)

    first = rollout("advance", *args, "--now", _at(NOW))
    assert first.code == 0, first.out + first.err
    assert "l40s 5% -> 25%" in first.out and "l4 95% -> 75%" in first.out, first.out
    assert _weights(path, service) == {"l4": 75, "l40s": 25}
    assert _since(path, service) is not None

    baking = rollout("advance", *args, "--now", _at(NOW + timedelta(seconds=2)))  # the 3s bake has not passed
    assert baking.code == 0 and "holding: the step is baking" in baking.out, baking.out
    assert _weights(path, service) == {"l4": 75, "l40s": 25}

    for seconds, expected in ((3, {"l4": 50, "l40s": 50}), (6, {"l4": 0, "l40s": 100})):
        step = rollout("advance", *args, "--now", _at(NOW + timedelta(seconds=seconds)))
        assert step.code == 0 and "advance:" in step.out, step.out
        assert _weights(path, service) == expected

    done = rollout("advance", *args, "--now", _at(NOW + timedelta(seconds=9)))
    assert done.code == 0 and "complete:" in done.out, done.out
    assert _weights(path, service) == {"l4": 0, "l40s": 100}
    # Each written step is in the file's history with the gate values it was judged on; holds are not.
    history = _service(path, service).rollout.history
    assert [(r.action.value, r.weights) for r in history] == [
        ("advance", {"l4": 75, "l40s": 25}), ("advance", {"l4": 50, "l40s": 50}), ("advance", {"l4": 0, "l40s": 100})]
    assert all(set(r.gates) >= {"min_requests", "max_error_rate", "max_p99_seconds"} for r in history)
    assert history[0].gates["max_error_rate"] == 0 and history[0].gates["min_requests"] > 20
    status = rollout("status", "--stack-file", path, "--service", service, "--no-live")
    assert "history (newest last):" in status.out and "advance   l4 0% / l40s 100%" in status.out, status.out


def test_an_error_spike_rolls_back_even_while_baking_and_exits_1(
    tmp_path: Path, prometheus: Prometheus, rollout: Any
) -> None:
    service = "spike"
    # At 25% and baked one minute of ten: a failing gate is decided before the bake holds.
    since = _at(NOW - timedelta(minutes=1))
    baking = f'            bake: 10m\n            since: "{since}"\n'
    path = write_stack(tmp_path, service, **{"weight: 95   #": "weight: 75   #", "weight: 5,": "weight: 25,",
                                             "            bake: 2s\n": baking})

    result = rollout("advance", "--stack-file", path, "--service", service, "--prometheus-url", prometheus.url,
                     "--now", _at(NOW))
    assert result.code == 1, result.out + result.err
    assert "ROLLED BACK" in result.out and "5xx rate" in result.out and "fails" in result.out, result.out
    assert _weights(path, service) == {"l4": 100, "l40s": 0}
    assert _since(path, service) == _at(NOW)  # the rollback is the new step, taken now


def test_a_canary_shedding_load_with_429s_does_not_advance(
    tmp_path: Path, prometheus: Prometheus, rollout: Any
) -> None:
    """Low 5xx and fast, but a third of its answers are 429s: the canary only looks healthy because it
    refuses work. It rolls back (exit 1) and the report says the 429 rate is why."""
    service = "shedding"
    path = write_stack(tmp_path, service)
    args = ("--stack-file", path, "--service", service, "--prometheus-url", prometheus.url, "--now", _at(NOW))

    data = json.loads(rollout("status", *args, "--format", "json").out)
    gates = {g["gate"]: g for g in data["gates"]}
    assert gates["max_error_rate"]["state"] == "holds" and gates["max_p99_seconds"]["state"] == "holds"
    assert gates["max_throttled_rate"]["state"] == "fails" and 0.2 < gates["max_throttled_rate"]["observed"] < 0.4
    backends = {b["name"]: b for b in data["backends"]}
    assert backends["l40s"]["throttled_429"] > 10 and backends["l4"]["throttled_rate"] == 0

    result = rollout("advance", *args)
    assert result.code == 1, result.out + result.err
    assert "ROLLED BACK" in result.out and "canary 429 rate" in result.out and "sheds load" in result.out, result.out
    assert _weights(path, service) == {"l4": 100, "l40s": 0}


def test_too_little_canary_traffic_holds_and_writes_nothing(
    tmp_path: Path, prometheus: Prometheus, rollout: Any
) -> None:
    service = "quiet"
    path = write_stack(tmp_path, service)
    before = path.read_bytes()

    result = rollout("advance", "--stack-file", path, "--service", service, "--prometheus-url", prometheus.url,
                     "--now", _at(NOW))
    assert result.code == 0, result.out + result.err
    assert "holding:" in result.out and "fewer than 20" in result.out, result.out
    assert path.read_bytes() == before


def test_status_shows_weights_traffic_and_gates_in_every_format(
    tmp_path: Path, prometheus: Prometheus, rollout: Any
) -> None:
    service = "shown"
    path = write_stack(tmp_path, service)
    before = path.read_bytes()
    args = ("--stack-file", path, "--service", service, "--prometheus-url", prometheus.url, "--now", _at(NOW))

    table = rollout("status", *args)
    assert table.code == 0, table.err
    assert "BACKEND" in table.out and "l40s" in table.out and "max_p99_ratio" in table.out, table.out
    assert "live weights not read" in table.out  # no AWS credentials here: shown, not fatal

    as_json = rollout("status", *args, "--format", "json")
    data = json.loads(as_json.out)
    backends = {b["name"]: b for b in data["backends"]}
    assert backends["l4"]["declared_weight"] == 95 and backends["l40s"]["declared_weight"] == 5
    assert backends["l40s"]["requests"] > 20 and backends["l40s"]["error_rate"] == 0
    assert 0.25 < backends["l40s"]["p99_seconds"] <= 0.5 and 0.05 < backends["l4"]["p99_seconds"] <= 0.1
    gates = {g["gate"]: g["state"] for g in data["gates"]}
    assert gates == {"min_requests": "holds", "max_error_rate": "holds", "max_throttled_rate": "holds",
                     "max_p99_seconds": "holds", "max_p99_ratio": "fails"}
    assert data["decision"]["action"] == "rollback"

    report = tmp_path / "status.md"
    markdown = rollout("status", *args, "--format", "markdown", "--output", report)
    assert markdown.code == 0 and "rollback" in markdown.err
    assert report.read_text().startswith(f"### Rollout: `{service}`") and "| `max_p99_ratio` |" in report.read_text()
    assert path.read_bytes() == before  # status writes nothing


def test_status_no_live_reads_nothing_and_says_what_advance_needs(tmp_path: Path, rollout: Any) -> None:
    """`--no-live` works offline: no Prometheus URL, no credentials; the declared weights, the next
    step, the gates as declared and the history (it used to demand --prometheus-url, or fail on
    CloudWatch's missing credentials)."""
    path = write_stack(tmp_path)
    result = rollout("status", "--stack-file", path, "--service", "server", "--no-live")
    assert result.code == 0, result.err
    assert "l40s     canary    5%" in result.out and "gates (declared, not judged):" in result.out, result.out
    assert "canary 5xx rate at most" in result.out
    assert "not judged: advance moves the canary to 25% once every gate holds" in result.out, result.out
    # It said "live weights not read: not read (--no-live)".
    assert "live weights not read: --no-live" in result.out.lower() and "not read (--no-live)" not in result.out
    data = json.loads(rollout("status", "--stack-file", path, "--service", "server", "--no-live",
                              "--format", "json").out)
    assert data["live"] == {"read": False, "note": "--no-live", "route_state": None} and data["gates"] == []
    assert data["decision"]["action"] == "not judged" and data["rollout"]["next_step"] == 25
    assert set(data["gate_definitions"]) == {"window", "min_requests", "max_error_rate", "max_p99_ratio",
                                             "max_p99_seconds", "max_throttled_rate"}


def test_unreachable_prometheus_is_bad_input_and_writes_nothing(tmp_path: Path, rollout: Any) -> None:
    from tests.support.prometheus.server import free_port

    path = write_stack(tmp_path)
    before = path.read_bytes()
    result = rollout("advance", "--stack-file", path, "--service", "server",
                     "--prometheus-url", f"http://127.0.0.1:{free_port()}", "--timeout", "2")
    assert result.code == 2 and "cannot read metrics from Prometheus at http://127.0.0.1:" in result.err, result.err
    assert path.read_bytes() == before
