"""Each end's traffic for the migration's gates: the whole service on that end (every backend it runs),
read from that end's own Prometheus (its cluster's, or its cloud's managed one) at an explicit moment.

Per end, four instant queries over the gate window, as the rollout's reader asks per backend but summed
over the service's backends (the end is one unit to its clients):

- requests: `sum(increase(<h>_count{service="S"}[W]))`, 5xx and 429 the same with the status label;
- p50, p99: `histogram_quantile(q, sum by (le) (rate(<h>_bucket{service="S"}[W])))`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from accelplane.declaration import InferenceService, PrometheusMetrics
from accelplane.errors import InputError
from accelplane.prometheus_api import instant_samples
from accelplane.rollout.prometheus import histogram_queries
from accelplane.rollout.traffic import BackendTraffic, finite


@dataclass(frozen=True)
class EndMetrics:
    role: str  # source or target
    stack: str
    service: InferenceService
    url: str
    option: str  # the command-line option that gave the URL, for messages
    authorization: Callable[[], str] | None = None  # a cloud's managed Prometheus


def _histogram(service: InferenceService) -> PrometheusMetrics:
    rollout = service.rollout
    return rollout.prometheus if rollout is not None else PrometheusMetrics()


def queries(service: InferenceService, window: str) -> dict[str, str]:
    return histogram_queries(_histogram(service), service.name, window, by=None)


def read_end(end: EndMetrics, window: str, now: datetime, timeout: float = 10.0) -> BackendTraffic:
    """The end's traffic over `window` ending at `now`; exit 2 naming the end when its Prometheus fails."""
    values: dict[str, float | None] = {}
    for name, promql in queries(end.service, window).items():
        try:
            samples = instant_samples(end.url, promql, now, command="accelplane migrate", timeout=timeout,
                                      authorization=end.authorization)
        except InputError as error:
            detail = "; ".join(problem.message for problem in error.problems)
            raise InputError.single(f"the {end.role} end ({end.stack}): {detail}", file="accelplane migrate",
                                    field=end.option) from None
        values[name] = samples[0][1] if samples else None
    return BackendTraffic(requests=values["requests"] or 0.0, errors=values["errors"] or 0.0,
                          throttled=values["throttled"] or 0.0, p50_seconds=finite(values["p50"]),
                          p99_seconds=finite(values["p99"]))
