"""`accelplane migrate status | advance | abort` against real components: moto's Route 53 server holding
the weighted records (`--endpoint-url`), and one real Prometheus per end (Debian's package) over
recorded series of each end's service, judged at an explicit `--now` (no wall clock).

The walk: start at 1 %, advance to 5 and 25 over bake windows with the gates passing; a target whose
5xx rate fails the gate rolls back to 0 (exit 1) and `--apply` gives the source every weight in one DNS
change; no parity report refuses to go past the first step; weights moved by hand in Route 53 refuse
advance; an end's Prometheus that cannot be reached is bad input naming that end; abort.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

import boto3
import pytest

from accelplane.config.project import find_project
from accelplane.migration.loader import load_migration
from tests.migration.test_migration_declaration import write_stacks
from tests.support.cli_process import run_accelplane
from tests.support.moto_server import moto_server
from tests.support.prometheus.server import Prometheus, backfilled, free_port

HISTOGRAM = "http_request_duration_seconds"
BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
RECORDED_FROM, RECORDED_UNTIL = NOW - timedelta(seconds=60), NOW + timedelta(seconds=60)
GOLDEN = "ab" * 32
HOSTNAME = "llm.acme.example."
# The first labels of the example's certificate validation records (below the hostname, which each test renames).
VALIDATION_LABELS = ("_a79865eb4cd1a6ab990a45779b4e0b96", "_acme-challenge_ujmmovf2vn55tgye")
# tpu-prod's llm-server backends serving today, by name: a parity report for each at its image.
TARGET_BACKENDS = ("h100", "v5e")


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _openmetrics(service: str, per_second: float, latency: float, errors: float) -> str:
    """One service's request histogram, a sample a second, as its servers' /metrics would count."""
    start, seconds = int(RECORDED_FROM.timestamp()), int((RECORDED_UNTIL - RECORDED_FROM).total_seconds())
    lines = [f"# TYPE {HISTOGRAM} histogram"]
    for code, rate in (("200", per_second * (1 - errors)), ("500", per_second * errors)):
        if not rate:
            continue
        labels = f'service="{service}",backend="b",code="{code}"'
        for bound in (*BUCKETS, float("inf")):
            le = "+Inf" if bound == float("inf") else repr(bound)
            lines += [f'{HISTOGRAM}_bucket{{{labels},le="{le}"}} {rate * t if latency <= bound else 0:g} {start + t}'
                      for t in range(seconds + 1)]
        lines += [f"{HISTOGRAM}_sum{{{labels}}} {rate * t * latency:g} {start + t}" for t in range(seconds + 1)]
        lines += [f"{HISTOGRAM}_count{{{labels}}} {rate * t:g} {start + t}" for t in range(seconds + 1)]
    return "\n".join(lines) + "\n# EOF\n"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Prometheus]]:
    # The source's serve, a healthy target's llm-server, and a target answering 30 % 5xx.
    recorded = {"source": ("serve", 40, 0.08, 0.0), "target": ("llm-server", 40, 0.09, 0.0),
                "failing": ("llm-server", 40, 0.09, 0.3)}
    servers: dict[str, Prometheus] = {}
    contexts = []
    try:
        for name, series in recorded.items():
            context = backfilled(tmp_path_factory.mktemp(f"prometheus-{name}"), _openmetrics(*series))
            servers[name] = context.__enter__()
            contexts.append(context)
        yield servers
    finally:
        for context in reversed(contexts):
            context.__exit__(None, None, None)


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_server() as url:
        yield url


def _route53(moto_url: str) -> object:
    return boto3.client("route53", endpoint_url=moto_url, region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def _zone(moto_url: str, name: str) -> str:
    """A hosted zone holding the records `pulumi up --stack llm-move` creates at weight 0."""
    route53 = _route53(moto_url)
    zone = route53.create_hosted_zone(Name=f"{name}.acme.example", CallerReference=name)["HostedZone"]["Id"]  # type: ignore[attr-defined]
    zone = zone.rsplit("/", 1)[-1]
    hostname = f"llm.{name}.acme.example"
    route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [  # type: ignore[attr-defined]
        {"Action": "CREATE", "ResourceRecordSet": {
            "Name": hostname, "Type": "A", "SetIdentifier": "prod", "Weight": 100,
            "AliasTarget": {"HostedZoneId": "Z1H1FL5HABSF5", "DNSName": "acme-ml-inference-alb.elb.amazonaws.com",
                            "EvaluateTargetHealth": False}}},
        {"Action": "CREATE", "ResourceRecordSet": {
            "Name": hostname, "Type": "A", "SetIdentifier": "tpu-prod", "Weight": 0, "TTL": 60,
            "ResourceRecords": [{"Value": "34.117.197.99"}]}}]})
    return zone


def _live(moto_url: str, zone: str) -> dict[str, int]:
    records = _route53(moto_url).list_resource_record_sets(HostedZoneId=zone)["ResourceRecordSets"]  # type: ignore[attr-defined]
    return {r["SetIdentifier"]: r["Weight"] for r in records if r.get("SetIdentifier")}


def _drill_report(tmp_path: Path) -> None:
    """A passing restore drill of the example's copy, as `migrate artifacts` writes it."""
    report = tmp_path / "parity" / "reports" / "artifacts" / "llm-move.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps({"kind": "accelplane.migration.artifacts_drill/v1", "verdict": "pass",
                                  "copy_on": "2026-12-07", "source_prefix": "released/", "target_prefix": "llm/"}))


def _stacks(tmp_path: Path, moto_url: str, name: str, *, reports: bool = True,
            drill: bool = True) -> tuple[Path, str]:
    """The example migration for this test's own zone and name, with a 2 s bake, a 30 s gate window, 20
    requests enough for a verdict and a pinned golden set; passing parity reports for the target."""
    zone = _zone(moto_url, name)
    hostname = f"llm.{name}.acme.example"
    path = write_stacks(tmp_path, {
        "llm-move": [("Z0123456789ABCDEFGHIJ", zone), ("hostname: llm.acme.example", f"hostname: {hostname}"),
                     *((f"{label}.llm.acme.example", f"{label}.{hostname}") for label in VALIDATION_LABELS),
                     ("bake: 30m", "bake: 2s"), ("window: 10m, min_requests: 300", "window: 30s, min_requests: 20"),
                     ("uri: parity/llm-server.golden.jsonl",
                      f"uri: parity/llm-server.golden.jsonl\n        sha256: {GOLDEN}")],
        "prod": [("hostnames: [llm.acme.example]", f"hostnames: [{hostname}]")],
        "tpu-prod": [("hostnames: [llm.acme.example]", f"hostnames: [{hostname}]")],
    })
    if drill:
        _drill_report(tmp_path)
    if reports:
        target = load_migration(path).target
        services = target.platform.kubernetes.inference_services  # type: ignore[union-attr]
        [service] = [s for s in services if s.name == "llm-server"]
        for backend in service.serving_backends:
            digest = backend.image.rsplit("@sha256:", 1)[-1]  # type: ignore[union-attr]
            report = tmp_path / "parity" / "reports" / "llm-server" / backend.name / digest / f"{GOLDEN}.json"
            report.parent.mkdir(parents=True, exist_ok=True)
            report.write_text('{"kind": "accelplane.rollout.parity.parity_report/v1", "verdict": "pass"}')
        assert sorted(b.name for b in service.serving_backends) == sorted(TARGET_BACKENDS)
    return path, zone


def _migrate(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", **(env or {})}
    return run_accelplane(["migrate", *args], cwd=find_project().root, env=env)


def _weight(path: Path) -> tuple[int, str | None]:
    text = path.read_text()
    weight = re.search(r"^    weight: (\d+)", text, re.M)
    since = re.search(r'^    since: "([^"]+)"', text, re.M)
    return int(weight[1]) if weight else -1, since[1] if since else None


def test_a_healthy_target_walks_the_steps_and_route53_follows(tmp_path, moto_url, prometheus) -> None:
    path, zone = _stacks(tmp_path, moto_url, "walk")
    urls = ("--source-prometheus-url", prometheus["source"].url, "--target-prometheus-url", prometheus["target"].url)
    common = ("--stack-file", path, "--endpoint-url", moto_url, *urls)

    start = _migrate("advance", *common, "--apply", "--now", _at(NOW))
    assert start.returncode == 0, start.stdout + start.stderr
    assert "start: the target takes 1%" in start.stdout
    assert _weight(path) == (1, _at(NOW)) and _live(moto_url, zone) == {"prod": 99, "tpu-prod": 1}

    baking = _migrate("advance", *common, "--apply", "--now", _at(NOW + timedelta(seconds=1)))
    assert baking.returncode == 0 and "holding: the step is baking" in baking.stdout, baking.stdout
    assert _weight(path)[0] == 1

    for seconds, weight in ((3, 5), (6, 25)):
        step = _migrate("advance", *common, "--apply", "--now", _at(NOW + timedelta(seconds=seconds)))
        assert step.returncode == 0, step.stdout + step.stderr
        assert f"advance: every gate holds; the target takes {weight}%" in step.stdout
        assert _weight(path)[0] == weight
        assert _live(moto_url, zone) == {"prod": 100 - weight, "tpu-prod": weight}

    status = _migrate("status", *common, "--format", "json", "--now", _at(NOW + timedelta(seconds=9)))
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert data["declared"] == data["live"] == {"prod": 75, "tpu-prod": 25}
    # 40 requests a second over a 30 s window, each end: increase() reads 1,200.
    assert round(data["traffic"]["target"]["requests"]) == 1200
    assert data["decision"]["action"] == "advance" and data["decision"]["weight"] == 50


def test_a_failing_gate_rolls_back_and_apply_returns_every_client_in_one_change(tmp_path, moto_url, prometheus):
    path, zone = _stacks(tmp_path, moto_url, "spike")
    baked = f'    weight: 5\n    since: "{_at(NOW - timedelta(seconds=10))}"'
    path.write_text(path.read_text().replace("    weight: 0", baked))
    _route53_weights(moto_url, zone, path, 5)
    result = _migrate("advance", "--stack-file", path, "--endpoint-url", moto_url, "--apply",
                      "--source-prometheus-url", prometheus["source"].url,
                      "--target-prometheus-url", prometheus["failing"].url, "--now", _at(NOW))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "rollback to the source" in result.stdout and "max_error_rate" in result.stdout
    assert _weight(path)[0] == 0 and _live(moto_url, zone) == {"prod": 100, "tpu-prod": 0}


def _route53_weights(moto_url: str, zone: str, path: Path, target: int) -> None:
    """Set the live weights as `pulumi up` would for the declared step."""
    from accelplane.clouds.aws.connection import AwsConnection
    from accelplane.clouds.aws.migration_live import write_weights
    from accelplane.migration.moves import live_records

    records = live_records(load_migration(path), AwsConnection(endpoint_url=moto_url))
    with mock.patch.dict(os.environ, {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}):
        write_weights(records, {"prod": 100 - target, "tpu-prod": target})


def test_no_parity_report_refuses_to_go_past_the_first_step(tmp_path, moto_url, prometheus) -> None:
    path, zone = _stacks(tmp_path, moto_url, "parity", reports=False)
    path.write_text(path.read_text().replace("    weight: 0", "    weight: 1"))
    _route53_weights(moto_url, zone, path, 1)
    before = path.read_text()
    result = _migrate("advance", "--stack-file", path, "--endpoint-url", moto_url, "--source-prometheus-url",
                      prometheus["source"].url, "--target-prometheus-url", prometheus["target"].url, "--now", _at(NOW))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "may not go past 1% without a passing parity check: no parity report for the target's backend" \
        in result.stdout
    assert path.read_text() == before


def test_weights_moved_by_hand_refuse_advance(tmp_path, moto_url, prometheus) -> None:
    path, zone = _stacks(tmp_path, moto_url, "drift")
    _route53_weights(moto_url, zone, path, 50)  # someone moved half the clients in the console
    before = path.read_text()
    result = _migrate("advance", "--stack-file", path, "--endpoint-url", moto_url, "--now", _at(NOW))
    assert result.returncode == 1
    assert "the DNS serves prod 50%, tpu-prod 50%, the stack file declares prod 100%, tpu-prod 0%" in result.stdout
    assert path.read_text() == before


def test_an_unreachable_end_is_bad_input_naming_it(tmp_path, moto_url, prometheus) -> None:
    path, zone = _stacks(tmp_path, moto_url, "unreachable")
    path.write_text(path.read_text().replace("    weight: 0", "    weight: 5"))
    _route53_weights(moto_url, zone, path, 5)
    closed = f"http://127.0.0.1:{free_port()}"
    before = path.read_text()
    result = _migrate("advance", "--stack-file", path, "--endpoint-url", moto_url, "--source-prometheus-url",
                      prometheus["source"].url, "--target-prometheus-url", closed, "--now", _at(NOW))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--target-prometheus-url: the target end (tpu-prod): cannot read metrics from Prometheus" in result.stderr
    assert path.read_text() == before


def test_abort_gives_the_source_every_client_and_says_how_fast_they_follow(tmp_path, moto_url) -> None:
    path, zone = _stacks(tmp_path, moto_url, "abort")
    path.write_text(path.read_text().replace("    weight: 0", "    weight: 25"))
    _route53_weights(moto_url, zone, path, 25)
    result = _migrate("abort", "--stack-file", path, "--endpoint-url", moto_url, "--apply", "--now", _at(NOW))
    assert result.returncode == 0, result.stdout + result.stderr
    assert _weight(path) == (0, _at(NOW)) and _live(moto_url, zone) == {"prod": 100, "tpu-prod": 0}
    assert "clients follow within 120 s at worst" in result.stdout


def test_without_credentials_the_dns_is_named(tmp_path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    env.update(AWS_CONFIG_FILE=str(tmp_path / "none"), AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
               AWS_EC2_METADATA_DISABLED="true")
    result = subprocess.run([sys.executable, "-m", "accelplane", "migrate", "status", "--stack", "llm-move"],
                            capture_output=True, text=True, timeout=120, cwd=find_project().root, env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "accelplane:migration.dns: the DNS (Route 53): Route 53 could not be reached" in result.stderr


def test_a_gke_end_on_managed_prometheus_is_read_with_a_google_token(tmp_path, moto_url, prometheus) -> None:
    """tpu-prod's gates read from Managed Service for Prometheus (the front checks Google's bearer token, from a
    service account key exchanged at the Google API fake's OAuth endpoint); prod's from its own Prometheus."""
    from tests.support.google_api_fake import GoogleApiFake
    from tests.support.google_api_fake.key_file import key_file
    from tests.support.prometheus.managed_front import TOKEN, managed_front

    path, zone = _stacks(tmp_path, moto_url, "managed")
    baked = f'    weight: 5\n    since: "{_at(NOW - timedelta(seconds=10))}"'
    path.write_text(path.read_text().replace("    weight: 0", baked))
    _route53_weights(moto_url, zone, path, 5)
    with GoogleApiFake() as google, managed_front(prometheus["target"].url, "acme-ml-tpu-prod") as (url, seen):
        key = key_file(tmp_path, google.url, "acme-ml-tpu-prod", "migrate")
        common = ("advance", "--stack-file", path, "--endpoint-url", moto_url, "--source-prometheus-url",
                  prometheus["source"].url, "--target-prometheus-url", url, "--now", _at(NOW))
        result = _migrate(*common, "--apply", env={"GOOGLE_APPLICATION_CREDENTIALS": str(key)})
        assert result.returncode == 0, result.stdout + result.stderr
        assert "advance: every gate holds; the target takes 25%" in result.stdout
        assert seen and set(seen) == {f"Bearer {TOKEN}"}

        missing = _migrate(*common, env={"GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "none.json")})
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert "--target-prometheus-url: the target end (tpu-prod): cannot query Managed Service for Prometheus" \
        in missing.stderr
    assert _weight(path)[0] == 25 and _live(moto_url, zone)["tpu-prod"] == 25  # the refused run changed nothing


def test_the_first_step_waits_for_the_restore_drill_of_the_model_files(tmp_path, moto_url) -> None:
    path, zone = _stacks(tmp_path, moto_url, "drill", drill=False)
    before = path.read_text()
    result = _migrate("advance", "--stack-file", path, "--endpoint-url", moto_url, "--now", _at(NOW))
    assert result.returncode == 1, result.stdout + result.stderr
    assert ("the target may not take its first step before the model's files are proven there: no restore drill "
            "of the model's files yet (parity/reports/artifacts/llm-move.json)") in result.stdout
    assert path.read_text() == before and _live(moto_url, zone)["tpu-prod"] == 0
