"""Latency at the declared batch sizes and throughput at the declared concurrency, bounded.

Per batch size: one warm-up request, then up to `requests` sequential batched requests (p50/p99,
nearest rank); then `requests` single requests from `concurrency` threads (requests per second
over the wall time). The whole measurement stops at `timeout`, and says so: a canary too slow to
finish is still judged on what it answered. The canary is compared with the baseline's figures
recorded with the golden set, measured the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from accelplane.declaration import Parity, ParityPerformance, duration_seconds
from accelplane.rollout.parity import protocol
from accelplane.rollout.parity.compare import Check
from accelplane.verify.probe import percentile

# The clock every figure and the time bound are read from (monotonic, in seconds). A module
# attribute so that a test can run it ahead of the wall clock instead of waiting for a slow answer.
clock: Callable[[], float] = time.perf_counter


def measure(transport: protocol.Transport, parity: Parity, requests: list[dict[str, Any]],
            timeout: float) -> dict[str, Any]:
    settings = parity.performance
    deadline = clock() + duration_seconds(settings.timeout)
    figures: dict[str, Any] = {"batch": {}, "concurrency": settings.concurrency, "stopped_at_time_bound": False}
    path = protocol.path(parity)
    for size in settings.batch_sizes:
        def body(index: int, size: int = size) -> dict[str, Any]:
            return protocol.batched(parity, [requests[(index * size + j) % len(requests)] for j in range(size)])

        transport.post(path, body(0), timeout)  # warm-up: connection, lazy initialisation
        seconds = []
        for index in range(settings.requests):
            if clock() > deadline:
                figures["stopped_at_time_bound"] = True
                break
            started = clock()
            transport.post(path, body(index), timeout)
            seconds.append(clock() - started)
        if seconds:
            figures["batch"][str(size)] = {"p50_ms": round(percentile(seconds, 50) * 1000, 3),
                                           "p99_ms": round(percentile(seconds, 99) * 1000, 3), "count": len(seconds)}
    figures["throughput_rps"] = _throughput(transport, parity, requests, settings, deadline, timeout, figures)
    return figures


def _throughput(transport: protocol.Transport, parity: Parity, requests: list[dict[str, Any]],
                settings: ParityPerformance, deadline: float, timeout: float, figures: dict[str, Any]) -> float:
    """Requests a second at the declared concurrency; where every answer says how many tokens it generated
    (a completions server's `usage`), the generated tokens a second too (`output_tokens_per_second`)."""
    path = protocol.path(parity)
    tokens: list[int | None] = []

    def one(index: int) -> int:
        if clock() > deadline:
            figures["stopped_at_time_bound"] = True
            return 0
        answer = transport.post(path, protocol.body(parity, requests[index % len(requests)]), timeout)
        tokens.append(protocol.output_tokens(parity, answer))
        return 1

    started = clock()
    with ThreadPoolExecutor(settings.concurrency) as pool:
        done = sum(pool.map(one, range(settings.requests)))
    wall = clock() - started
    if wall > 0 and tokens and all(count is not None for count in tokens):
        figures["output_tokens_per_second"] = round(sum(count or 0 for count in tokens) / wall, 3)
    return round(done / wall, 3) if wall > 0 and done else 0.0


def judge(settings: ParityPerformance, baseline: dict[str, Any], canary: dict[str, Any]) -> list[Check]:
    checks = []
    for size, figures in sorted(canary.get("batch", {}).items(), key=lambda item: int(item[0])):
        base = (baseline.get("batch") or {}).get(size)
        if base and base.get("p99_ms"):
            checks.append(Check(f"p99 latency at batch {size} / baseline's", figures["p99_ms"] / base["p99_ms"],
                                settings.max_latency_ratio, False))
    if baseline.get("throughput_rps"):
        checks.append(Check(f"throughput at concurrency {settings.concurrency} / baseline's",
                            float(canary.get("throughput_rps") or 0) / float(baseline["throughput_rps"]),
                            settings.min_throughput_ratio, True))
    return checks
