"""Read a service's per-backend traffic from the ALB's CloudWatch metrics (AWS/ApplicationELB).

Per backend, with the dimensions TargetGroup and LoadBalancer (the ARNs' final parts):

- `RequestCount`, statistic Sum: requests the load balancer routed to the target group;
- `HTTPCode_Target_5XX_Count`, statistic Sum: 5xx answers the targets generated (a 502/503 the ALB
  makes itself, e.g. with no healthy target, is `HTTPCode_ELB_5XX_Count`, which has no TargetGroup
  dimension and so cannot be charged to a backend);
- `TargetResponseTime`, statistics p50 and p99: seconds from the request leaving the load balancer
  to the target's answer.

(https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-cloudwatch-metrics.html)
A metric without data points (no 5xx at all) is published as nothing: counts read as 0.

ALB metrics are per minute, and `GetMetricData` periods of standard-resolution metrics are
multiples of 60 seconds (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_MetricStat.html):
the window is rounded up to whole minutes and ends at the last full minute before `now`, as one
period, so each query answers with one data point (a percentile cannot be summed from per-minute
percentiles). Counts and percentiles are separate `GetMetricData` calls: a percentile statistic
fails the whole call where it cannot be computed (moto 5.2.x cannot compute percentiles at all),
and the counts must not go with it.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from accelplane.clouds.aws.clients import API_ERRORS, describe_error
from accelplane.clouds.aws.rollout.alb import Routing
from accelplane.rollout.traffic import BackendTraffic, Traffic, finite

NAMESPACE = "AWS/ApplicationELB"


class MetricsError(Exception):
    """CloudWatch could not be read (the message names the call and AWS's answer)."""


def period_seconds(window_seconds: int) -> int:
    return max(60, math.ceil(window_seconds / 60) * 60)


def time_range(now: datetime, window_seconds: int) -> tuple[datetime, datetime, int]:
    period = period_seconds(window_seconds)
    end = now.replace(second=0, microsecond=0)
    return end - timedelta(seconds=period), end, period


def _query(ident: str, routing: Routing, backend: str, metric: str, stat: str, period: int) -> dict[str, Any]:
    return {
        "Id": ident,
        "MetricStat": {
            "Metric": {
                "Namespace": NAMESPACE,
                "MetricName": metric,
                "Dimensions": [
                    {"Name": "TargetGroup", "Value": routing.target_group_dimension(backend)},
                    {"Name": "LoadBalancer", "Value": routing.load_balancer_dimension()},
                ],
            },
            "Period": period,
            "Stat": stat,
        },
        "ReturnData": True,
    }


def count_queries(routing: Routing, backends: list[str], period: int) -> list[dict[str, Any]]:
    out = []
    for index, backend in enumerate(backends):
        out.append(_query(f"requests{index}", routing, backend, "RequestCount", "Sum", period))
        out.append(_query(f"errors{index}", routing, backend, "HTTPCode_Target_5XX_Count", "Sum", period))
    return out


def percentile_queries(routing: Routing, backends: list[str], period: int) -> list[dict[str, Any]]:
    out = []
    for index, backend in enumerate(backends):
        out.append(_query(f"p50x{index}", routing, backend, "TargetResponseTime", "p50", period))
        out.append(_query(f"p99x{index}", routing, backend, "TargetResponseTime", "p99", period))
    return out


def _results(cloudwatch: Any, queries: list[dict[str, Any]], start: datetime, end: datetime) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {query["Id"]: [] for query in queries}
    token = ""
    while True:
        try:
            page = cloudwatch.get_metric_data(MetricDataQueries=queries, StartTime=start, EndTime=end,
                                              ScanBy="TimestampDescending", **({"NextToken": token} if token else {}))
        except API_ERRORS as error:
            code, message = describe_error(error)
            raise MetricsError(f"cloudwatch GetMetricData failed: {code}: {message}") from None
        for result in page.get("MetricDataResults", []):
            values.setdefault(result["Id"], []).extend(float(v) for v in result.get("Values", []))
        token = page.get("NextToken") or ""
        if not token:
            return values


def read_traffic(cloudwatch: Any, routing: Routing, backends: list[str], window_seconds: int, now: datetime) -> Traffic:
    """Traffic of the backends that have a target group (others served nothing through the ALB)."""
    present = [backend for backend in backends if backend in routing.target_groups]
    start, end, period = time_range(now, window_seconds)
    counts = _results(cloudwatch, count_queries(routing, present, period), start, end) if present else {}
    latency = _results(cloudwatch, percentile_queries(routing, present, period), start, end) if present else {}
    traffic: Traffic = {backend: BackendTraffic() for backend in backends}
    for index, backend in enumerate(present):
        p50, p99 = latency.get(f"p50x{index}") or [], latency.get(f"p99x{index}") or []
        traffic[backend] = BackendTraffic(
            requests=sum(counts.get(f"requests{index}", [])),
            errors=sum(counts.get(f"errors{index}", [])),
            # Newest first (ScanBy): one period, so one value; a second would be a partial edge.
            p50_seconds=finite(p50[0]) if p50 else None,
            p99_seconds=finite(p99[0]) if p99 else None,
        )
    return traffic
