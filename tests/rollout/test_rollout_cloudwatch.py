"""`accelplane rollout` on CloudWatch metrics and the live ALB, against moto.

The ALB, its HTTPS listener, rule and target groups are moto's (ELBv2), found by their tags; the
counts (RequestCount, HTTPCode_Target_5XX_Count) are written to moto's CloudWatch with
put_metric_data and read back by the command. The p50/p99 of TargetResponseTime are recorded
answers served through botocore's Stubber: moto 5.2.x cannot compute percentiles (a `p99`
statistic in get_metric_data fails while serialising), which is also why the command asks for
counts and percentiles in separate calls. The Stubber checks the percentile request exactly
(metric, dimensions, period, time range).

`--apply-now` is checked against moto's ELBv2: the listener's default action (the "/" service) or
the service's listener rule forward with the new weights afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from botocore.stub import Stubber
from moto import mock_aws

from accelplane.clouds.aws.rollout import alb, cloudwatch
from accelplane.clouds.aws.rollout import route as run
from accelplane.config.loader import load_stack_file
from tests.rollout.conftest import stack_text, write_stack
from tests.rollout.moto_alb import MotoAlb

NOW = datetime(2026, 12, 3, 7, 0, 30, tzinfo=UTC)
NOW_TEXT = "2026-12-03T07:00:30Z"
IMAGE = ("111122223333.dkr.ecr.us-east-1.amazonaws.com/llm-server@sha256:"
         "8f4b1c3a9e2d7f6b5a4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a")
CHAT = f"""        - name: chat
          workload: server
          path_prefix: /chat/
          backends:
            - {{name: l4, node_pool: infer-l4, image: "{IMAGE}", weight: 50,
               autoscaling: {{min_replicas: 1, max_replicas: 2}}}}
            - {{name: l40s, node_pool: infer-l40s, image: "{IMAGE}", weight: 50,
               autoscaling: {{min_replicas: 1, max_replicas: 2}}}}
          rollout: {{baseline: l4, canary: l40s, steps: [50, 100], metrics: cloudwatch}}
      training_templates:
"""


def _cloudwatch_stack(tmp_path: Path) -> Path:
    text = stack_text(**{"metrics: prometheus": "metrics: cloudwatch", "window: 5s": "window: 5m",
                         "      training_templates:\n": CHAT})
    return write_stack(tmp_path, text=text)


class SplitCloudWatch:
    """Counts to moto's CloudWatch, percentile queries to a Stubber with recorded answers."""

    def __init__(self, moto_client: Any, stubbed_client: Any) -> None:
        self.moto, self.stubbed = moto_client, stubbed_client

    def get_metric_data(self, **params: Any) -> Any:
        percentiles = any(q["MetricStat"]["Stat"].startswith("p") for q in params["MetricDataQueries"])
        return (self.stubbed if percentiles else self.moto).get_metric_data(**params)


@pytest.fixture
def aws(fake_credentials: None, tmp_path: Path) -> Iterator[None]:
    with mock_aws():
        yield


@pytest.fixture
def percentiles(aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Queue recorded p50/p99 answers: `percentiles(routing, {backend: (p50, p99)})`."""
    stubbed = run.Aws("us-east-1", None, None).writer("cloudwatch")
    stubber = Stubber(stubbed)
    real = run.connect_aws

    def connect(region: str, endpoint_url: str | None, profile: str | None) -> run.Aws:
        aws = real(region, endpoint_url, profile)
        reads = aws.__call__

        class Split(run.Aws):
            def __init__(self) -> None:
                self.reads = aws.reads

            def __call__(self, service: str) -> Any:
                return SplitCloudWatch(reads(service), stubbed) if service == "cloudwatch" else reads(service)

        return Split()

    monkeypatch.setattr(run, "connect_aws", connect)

    def queue(routing: alb.Routing, backends: list[str], latencies: dict[str, tuple[float, float]]) -> None:
        start, end, period = cloudwatch.time_range(NOW, 300)
        queries = cloudwatch.percentile_queries(routing, backends, period)
        results = []
        for index, backend in enumerate(backends):
            p50, p99 = latencies[backend]
            results += [{"Id": f"p50x{index}", "Label": "TargetResponseTime p50", "Timestamps": [start],
                         "Values": [p50], "StatusCode": "Complete"},
                        {"Id": f"p99x{index}", "Label": "TargetResponseTime p99", "Timestamps": [start],
                         "Values": [p99], "StatusCode": "Complete"}]
        stubber.add_response("get_metric_data", {"MetricDataResults": results},
                             {"MetricDataQueries": queries, "StartTime": start, "EndTime": end,
                              "ScanBy": "TimestampDescending"})

    with stubber:
        yield queue
        stubber.assert_no_pending_responses()


def _platform(path: Path, **options: Any) -> tuple[MotoAlb, alb.Routing]:
    stack = load_stack_file(path)
    moto = MotoAlb(stack).create(**options)
    service = stack.platform.kubernetes.inference_services[0]  # type: ignore[union-attr]
    return moto, alb.find_routing(run.Aws("us-east-1", None, None), stack.platform, service)


def _weights(path: Path, service: str) -> dict[str, int]:
    stack = load_stack_file(path)
    [found] = [s for s in stack.platform.kubernetes.inference_services if s.name == service]  # type: ignore[union-attr]
    return {b.name: b.weight for b in found.serving_backends}


def test_the_window_is_whole_minutes_ending_at_the_last_full_minute() -> None:
    start, end, period = cloudwatch.time_range(NOW, 5)
    assert (start, end, period) == (NOW.replace(second=0) - timedelta(minutes=1), NOW.replace(second=0), 60)
    assert cloudwatch.period_seconds(300) == 300 and cloudwatch.period_seconds(301) == 360


def test_routing_is_found_by_tags_with_cloudwatch_dimensions(tmp_path: Path, aws: None) -> None:
    moto, routing = _platform(_cloudwatch_stack(tmp_path))
    assert routing.rule_arn is None and routing.listener_arn == moto.listener_arn
    assert routing.target_group_dimension("l40s") == moto.dimensions("server", "l40s")[0]["Value"]
    assert routing.load_balancer_dimension().startswith("app/acme-ml-canary-alb/")
    assert alb.live_weights(routing) == {"l4": 95, "l40s": 5}


def test_healthy_counts_and_latencies_advance_the_canary(tmp_path: Path, percentiles: Any, rollout: Any) -> None:
    path = _cloudwatch_stack(tmp_path)
    moto, routing = _platform(path)
    at = NOW - timedelta(minutes=3)
    moto.put_counts("server", "l4", at, requests=3800, errors=4)
    moto.put_counts("server", "l40s", at, requests=200, errors=1)
    percentiles(routing, ["l4", "l40s"], {"l4": (0.12, 0.40), "l40s": (0.10, 0.45)})

    result = rollout("advance", "--stack-file", path, "--service", "server", "--now", NOW_TEXT)
    assert result.code == 0, result.out + result.err
    assert "served 200 requests" in result.out and "0.50%" in result.out and "1.12x" in result.out, result.out
    assert _weights(path, "server") == {"l4": 75, "l40s": 25}
    assert moto.live("server") == {"l4": 95, "l40s": 5}  # the file only: `pulumi up` moves the live weights


def test_a_5xx_spike_in_cloudwatch_rolls_back(tmp_path: Path, percentiles: Any, rollout: Any) -> None:
    path = _cloudwatch_stack(tmp_path)
    moto, routing = _platform(path)
    moto.put_counts("server", "l4", NOW - timedelta(minutes=2), requests=3800, errors=0)
    moto.put_counts("server", "l40s", NOW - timedelta(minutes=2), requests=200, errors=30)
    percentiles(routing, ["l4", "l40s"], {"l4": (0.12, 0.40), "l40s": (0.10, 0.45)})

    result = rollout("advance", "--stack-file", path, "--service", "server", "--now", NOW_TEXT)
    assert result.code == 1 and "ROLLED BACK" in result.out and "15.00%" in result.out, result.out
    assert _weights(path, "server") == {"l4": 100, "l40s": 0}


def test_status_shows_the_live_weights_and_counts(tmp_path: Path, percentiles: Any, rollout: Any) -> None:
    path = _cloudwatch_stack(tmp_path)
    moto, routing = _platform(path)
    moto.put_counts("server", "l40s", NOW - timedelta(minutes=1, seconds=30), requests=10, errors=0)
    percentiles(routing, ["l4", "l40s"], {"l4": (float("nan"), float("nan")), "l40s": (0.1, 0.2)})

    result = rollout("status", "--stack-file", path, "--service", "server", "--now", NOW_TEXT, "--format", "json")
    data = json.loads(result.out)
    backends = {b["name"]: b for b in data["backends"]}
    assert backends["l4"]["live_weight"] == 95 and backends["l40s"]["live_weight"] == 5
    assert backends["l4"]["requests"] == 0 and backends["l4"]["p99_seconds"] is None
    assert backends["l40s"]["requests"] == 10 and data["decision"]["action"] == "hold"


def test_apply_now_sets_the_listeners_weights_and_writes_the_file(tmp_path: Path, aws: None, rollout: Any) -> None:
    path = _cloudwatch_stack(tmp_path)
    moto, _ = _platform(path)
    result = rollout("abort", "--stack-file", path, "--service", "server", "--apply-now", "--now", NOW_TEXT)
    assert result.code == 0, result.err
    assert moto.live("server") == {"l4": 100, "l40s": 0}
    assert _weights(path, "server") == {"l4": 100, "l40s": 0}
    assert "pulumi up" in result.err and "warning" in result.err
    assert moto.live("chat") == {"l4": 50, "l40s": 50}  # the other service's rule is untouched


def test_apply_now_sets_a_prefixed_services_rule(tmp_path: Path, aws: None, rollout: Any) -> None:
    path = _cloudwatch_stack(tmp_path)
    moto, _ = _platform(path)
    result = rollout("abort", "--stack-file", path, "--service", "chat", "--apply-now", "--now", NOW_TEXT)
    assert result.code == 0, result.err
    assert moto.live("chat") == {"l4": 100, "l40s": 0} and moto.live("server") == {"l4": 95, "l40s": 5}
    assert f"rule {moto.rules['chat']}" in result.out


def test_apply_now_without_the_canarys_target_group_changes_nothing(tmp_path: Path, aws: None, rollout: Any) -> None:
    path = _cloudwatch_stack(tmp_path)
    text = path.read_text().replace("weight: 50,\n", "weight: 100,\n", 1).replace("weight: 50,\n", "weight: 0,\n", 1)
    path.write_text(text)  # chat's canary idle at 0%, and (below) without a target group live
    moto, _ = _platform(path, skip=(("chat", "l40s"),))
    before = path.read_bytes()
    result = rollout("advance", "--stack-file", path, "--service", "chat", "--start", "--apply-now")
    assert result.code == 2 and "no target group for backend(s) l40s" in result.err, result.err
    assert path.read_bytes() == before and moto.live("chat") == {"l4": 100}


def test_an_unreachable_aws_endpoint_is_bad_input(tmp_path: Path, fake_credentials: None, rollout: Any) -> None:
    from tests.support.prometheus.server import free_port

    path = _cloudwatch_stack(tmp_path)
    before = path.read_bytes()
    result = rollout("advance", "--stack-file", path, "--service", "server",
                     "--endpoint-url", f"http://127.0.0.1:{free_port()}")
    assert result.code == 2 and "cannot read the cloudwatch metrics" in result.err, result.err
    assert path.read_bytes() == before


def test_advance_with_apply_now_moves_the_live_weights_too(tmp_path: Path, percentiles: Any, rollout: Any) -> None:
    path = _cloudwatch_stack(tmp_path)
    moto, routing = _platform(path)
    moto.put_counts("server", "l4", NOW - timedelta(minutes=3), requests=3800, errors=0)
    moto.put_counts("server", "l40s", NOW - timedelta(minutes=3), requests=200, errors=0)
    percentiles(routing, ["l4", "l40s"], {"l4": (0.12, 0.40), "l40s": (0.10, 0.41)})
    result = rollout("advance", "--stack-file", path, "--service", "server", "--now", NOW_TEXT, "--apply-now")
    assert result.code == 0, result.out + result.err
    assert moto.live("server") == {"l4": 75, "l40s": 25} and _weights(path, "server") == {"l4": 75, "l40s": 25}
    assert "applied live: listener" in result.out


def test_apply_now_through_endpoint_url(tmp_path: Path, fake_credentials: None, rollout: Any) -> None:
    """--endpoint-url reaches a moto server over HTTP, as `verify --endpoint-url` does."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        url = f"http://{host}:{port}"
        path = _cloudwatch_stack(tmp_path)
        moto = MotoAlb(load_stack_file(path), endpoint_url=url).create()
        status = rollout("status", "--stack-file", path, "--service", "chat", "--endpoint-url", url,
                         "--now", NOW_TEXT, "--format", "json")
        assert status.code == 0, status.err  # no data points: moto has no percentile to fail on
        assert {b["name"]: b["live_weight"] for b in json.loads(status.out)["backends"]} == {"l4": 50, "l40s": 50}
        result = rollout("abort", "--stack-file", path, "--service", "chat", "--apply-now", "--endpoint-url", url)
        assert result.code == 0, result.err
        assert moto.live("chat") == {"l4": 100, "l40s": 0}
    finally:
        server.stop()
