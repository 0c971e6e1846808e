"""`accelplane cost idle` against a real Prometheus (Debian's, with promtool) holding 30 hours of
recorded series: an idle GPU node and a busy one of prod's infer-l40s, a GPU node idle but for one
5-minute burst, and the four hosts of an idle v5p slice of tpu-prod. The recorded series are written as
OpenMetrics and backfilled with `promtool tsdb create-blocks-from openmetrics`, so the 24-hour windows
are real range queries over real blocks."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from tests.support.cli_contract import run_cli
from tests.support.prometheus.server import Prometheus, backfilled

HOURS = 730
# Every query is made as of this instant (a fixed past time, no wall clock): the recording ends 30 s before it.
NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
AT = NOW.strftime("%Y-%m-%dT%H:%M:%SZ")
IDLE_GPU, BUSY_GPU, BURST_GPU = "ip-10-20-1-5.us-west-2.compute.internal", "ip-10-20-1-6.us-west-2.compute.internal", \
    "ip-10-20-1-7.us-west-2.compute.internal"
SLICE_HOSTS = [f"gke-acme-tpu-train-v5p-s0-4f2a9c1e-{suffix}" for suffix in ("a1b2", "c3d4", "e5f6", "g7h8")]
BUSY_TPU = "gke-acme-tpu-infer-v5e-77aa21cc-zz01"


def _openmetrics(now: float) -> str:
    # Every 5 minutes for 30 hours, the last 30 s ago (inside the 5-minute lookback of an instant query).
    last, step = int(now) - 30, 300
    stamps = sorted(range(last, last - 30 * 3600, -step))
    lines = ["# TYPE kube_node_labels gauge"]
    for node, pool in [(IDLE_GPU, "infer-l40s"), (BUSY_GPU, "infer-l40s"), (BURST_GPU, "infer-l40s"),
                       *((host, "train-v5p") for host in SLICE_HOSTS), (BUSY_TPU, "infer-v5e")]:
        lines += [f'kube_node_labels{{node="{node}",label_accelplane_io_pool="{pool}"}} 1 {t}' for t in stamps]
    lines.append("# TYPE DCGM_FI_DEV_GPU_UTIL gauge")
    for node, value in [(IDLE_GPU, lambda i: 3.0), (BUSY_GPU, lambda i: 70.0 + i % 7),
                        (BURST_GPU, lambda i: 55.0 if i == len(stamps) // 2 else 2.0)]:
        lines += [f'DCGM_FI_DEV_GPU_UTIL{{Hostname="{node}",gpu="0"}} {value(i)} {t}' for i, t in enumerate(stamps)]
    lines.append("# TYPE duty_cycle gauge")
    for node, value in [*((host, 1.5) for host in SLICE_HOSTS), (BUSY_TPU, 64.0)]:
        for chip in range(4):
            lines += [f'duty_cycle{{node="{node}",accelerator_id="{chip}",make="cloud-tpu"}} {value} {t}'
                      for t in stamps]
    return "\n".join(lines) + "\n# EOF\n"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    with backfilled(tmp_path_factory.mktemp("idle-prometheus"), _openmetrics(NOW.timestamp())) as server:
        yield server


def test_the_idle_gpu_node_is_named_with_its_saving(prometheus: Prometheus) -> None:
    outcome = run_cli(["cost", "idle", "--now", AT, "--stack", "prod", "--prometheus-url", prometheus.url,
                       "--format", "json"])
    assert outcome.code == 1, outcome.err  # idle nodes found
    report = json.loads(outcome.out)
    nodes = {n["node"]: n for n in report["nodes"]}
    assert nodes[IDLE_GPU]["idle"] and nodes[IDLE_GPU]["peak_percent"] == 3.0
    assert (nodes[IDLE_GPU]["below_percent"], nodes[IDLE_GPU]["window_hours"]) == (10, 24)  # prod's default
    # g6e.2xlarge at $2.24208 an hour and its 300 GiB gp3 volume at $0.08 a GB-month
    assert nodes[IDLE_GPU]["monthly_saving"] == pytest.approx(2.24208 * HOURS + 300 * 0.08, abs=0.01)
    assert not nodes[BUSY_GPU]["idle"] and nodes[BUSY_GPU]["peak_percent"] == 76.0
    # One 5-minute burst to 55 % in the window: not idle.
    assert not nodes[BURST_GPU]["idle"] and nodes[BURST_GPU]["peak_percent"] == 55.0
    assert report["idle"] == 1 and report["monthly_saving"] == nodes[IDLE_GPU]["monthly_saving"]
    assert "pool infer-inf2: no utilisation series for its nodes" in " ".join(report["notes"])


def test_the_idle_tpu_slice_is_named_host_by_host(prometheus: Prometheus) -> None:
    outcome = run_cli(["cost", "idle", "--now", AT, "--stack", "tpu-prod", "--prometheus-url", prometheus.url])
    assert outcome.code == 1, outcome.err
    lines = outcome.out.splitlines()
    for host in SLICE_HOSTS:
        assert any(line.startswith(host) and "train-v5p" in line and "IDLE" in line for line in lines)
    busy = next(line for line in outcome.out.splitlines() if line.startswith(BUSY_TPU))
    assert "busy" in busy and "64" in busy
    # Each host: ct5p-hightpu-4t = 4 v5p chips at $4.20, plus its 200 GB boot disk at $0.10
    per_host = 4 * 4.20 * HOURS + 200 * 0.10
    assert f"IDLE: 4 of 5 accelerator nodes in stack tpu-prod; releasing them saves ${4 * per_host:,.2f} a month" \
        in outcome.out


def test_a_shorter_window_and_a_bad_url(prometheus: Prometheus) -> None:
    # Over the last hour the burst node is idle too (its burst was 15 hours ago).
    outcome = run_cli(["cost", "idle", "--now", AT, "--stack", "prod", "--prometheus-url", prometheus.url,
                       "--hours", "1", "--format", "json"])
    nodes = {n["node"]: n for n in json.loads(outcome.out)["nodes"]}
    assert nodes[BURST_GPU]["idle"] and nodes[BURST_GPU]["window_hours"] == 1
    bad = run_cli(["cost", "idle", "--stack", "prod", "--prometheus-url", "ftp://example"])
    assert bad.code == 2 and "--prometheus-url" in bad.err and "Traceback" not in bad.err


def test_the_per_pool_alert_rules_are_valid_and_find_the_idle_node(prometheus: Prometheus, tmp_path) -> None:
    """prod's PrometheusRule passes promtool's rule check, and its AcceleratorIdle expression for
    infer-l40s, asked of the same recorded series, names the idle nodes (not the busy one) with the pool."""
    import yaml

    from accelplane.config.loader import load_stack
    from accelplane.program import offline_graph

    graph = offline_graph(load_stack("prod"))
    [rule] = [r for r in graph.by_type("kubernetes:monitoring.coreos.com/v1:PrometheusRule")]
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump({"groups": rule.inputs["spec"]["groups"]}))
    checked = subprocess.run([shutil.which("promtool") or "promtool", "check", "rules", str(rules)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    idle = [r for r in rule.inputs["spec"]["groups"][0]["rules"] if r["alert"] == "AcceleratorIdle"]
    # prod's accelerator pools, prod's default window: train-h100, infer-l40s (DCGM), infer-inf2, train-trn1 (Neuron)
    assert {r["for"] for r in idle} == {"24h"} and len(idle) == 4
    l40s = next(r for r in idle if 'label_accelplane_io_pool="infer-l40s"' in r["expr"])
    samples = prometheus.query(l40s["expr"], at=NOW.timestamp())
    found = {sample["metric"]["node"]: sample["metric"]["pool"] for sample in samples}
    assert found == {IDLE_GPU: "infer-l40s", BURST_GPU: "infer-l40s"}  # idle now; `for: 24h` spares the burst one
