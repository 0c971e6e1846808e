"""Read a service's per-backend traffic from Prometheus' HTTP API (instant queries at `now`).

The cluster's PodMonitor labels every backend's series with `service` and `backend`, so four
instant queries answer for all backends at once:

- requests: `sum by (backend) (increase(<h>_count{service="S"}[W]))`
- 5xx:      the same with `<status_label>=~"5.."`
- 429:      the same with `<status_label>="429"` (throttled: a canary shedding load)
- p50, p99: `histogram_quantile(q, sum by (le, backend) (rate(<h>_bucket{service="S"}[W])))`

`increase()` extrapolates to the window's edges, so counts are fractional; `histogram_quantile`
over a window without requests is NaN, read as "no latency". The queries go through
`accelplane.prometheus_api` (its errors are usage problems, exit 2).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from accelplane.declaration import PrometheusMetrics, Rollout
from accelplane.prometheus_api import instant_samples
from accelplane.rollout.traffic import BackendTraffic, Traffic, finite


def _label_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def queries(service: str, rollout: Rollout) -> dict[str, str]:
    return histogram_queries(rollout.prometheus, service, rollout.gates.window, by="backend")


def histogram_queries(metrics: PrometheusMetrics, service: str, window: str, by: str | None) -> dict[str, str]:
    """The request, 5xx, 429 counts and p50/p99 of a service's histogram over `window` (a Prometheus
    duration as written: "30s", "10m"), per value of the `by` label, or for the whole service (None)."""
    histogram = metrics.histogram
    selector = f'service="{_label_value(service)}"'
    errors = f'{selector},{metrics.status_label}=~"5.."'
    throttled = f'{selector},{metrics.status_label}="429"'
    total = f"sum by ({by}) " if by else "sum"
    buckets = f"sum by (le{f', {by}' if by else ''}) (rate({histogram}_bucket{{{selector}}}[{window}]))"
    return {
        "requests": f"{total}(increase({histogram}_count{{{selector}}}[{window}]))",
        "errors": f"{total}(increase({histogram}_count{{{errors}}}[{window}]))",
        "throttled": f"{total}(increase({histogram}_count{{{throttled}}}[{window}]))",
        "p50": f"histogram_quantile(0.5, {buckets})",
        "p99": f"histogram_quantile(0.99, {buckets})",
    }


def read_traffic(url: str, service: str, backends: list[str], rollout: Rollout, now: datetime,
                 timeout: float = 10.0, authorization: Callable[[], str] | None = None) -> Traffic:
    """`authorization`: the `Authorization` header per query, for a Prometheus behind a cloud's auth
    (Google Cloud Managed Service for Prometheus); None for a plain one."""
    found = {name: _query(url, promql, now, timeout, authorization)
             for name, promql in queries(service, rollout).items()}
    traffic: Traffic = {}
    for backend in backends:
        traffic[backend] = BackendTraffic(
            requests=found["requests"].get(backend, 0.0) or 0.0,
            errors=found["errors"].get(backend, 0.0) or 0.0,
            throttled=found["throttled"].get(backend, 0.0) or 0.0,
            p50_seconds=finite(found["p50"].get(backend)),
            p99_seconds=finite(found["p99"].get(backend)),
        )
    return traffic


def _query(base: str, promql: str, now: datetime, timeout: float,
           authorization: Callable[[], str] | None = None, key: str = "backend",
           command: str = "accelplane rollout") -> dict[str, float]:
    """One instant query; its vector as {value of the `key` label: value}."""
    values: dict[str, float] = {}
    for metric, value in instant_samples(base, promql, now, command=command, timeout=timeout,
                                         authorization=authorization):
        label = metric.get(key)
        if isinstance(label, str):
            values[label] = value
    return values
