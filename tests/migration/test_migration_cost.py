"""`accelplane cost --stack llm-move`: both ends' service pools, the overlap at each step and the cost per
million requests. Every expected figure is worked out by hand below from the price tables' rows (USD,
730 hours a month) and the ends' declared pool sizes:

prod (AWS us-west-2), `serve` on
- infer-l40s, g6e.2xlarge at $2.24208/h + 300 GiB gp3 at $0.08/GiB-month: 2.24208 x 730 + 24 = $1,660.7184
  a node; min 2, desired 3, max 12;
- infer-inf2, inf2.xlarge at $0.7582/h + the same volume: 0.7582 x 730 + 24 = $577.486 a node; 1 / 1 / 8.
tpu-prod (GCP us-central1), `llm-server` on
- infer-h100, a3-highgpu-1g at $11.06125/h + 300 GB pd-balanced at $0.10: 8,074.7125 + 30 = $8,104.7125 a
  node; 1 / 3 / 8;
- infer-v5e, ct5lp-hightpu-8t at $9.60/h + 200 GB pd-balanced: 7,008 + 20 = $7,028 a node; 1 / 2 / 6.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from accelplane.cli.cost import stack_estimate
from accelplane.config.project import find_project
from accelplane.migration.cost import migration_cost
from accelplane.migration.cost_output import FORMATS
from accelplane.migration.loader import load_migration
from tests.migration.test_migration_declaration import write_stacks
from tests.support.cli_process import run_accelplane

L40S, INF2, H100, V5E = 1660.7184, 577.486, 8104.7125, 7028.0


def _cost(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_accelplane(["cost", *args], cwd=find_project().root)


def test_each_step_sizes_both_ends_service_pools_to_their_share() -> None:
    result = _cost("--stack", "llm-move", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    steps = {step["target_weight"]: step for step in data["steps"]}
    # ceil(desired x share) nodes, within each pool's minimum and maximum:
    expected = {
        0: (3 * L40S + INF2, H100 + V5E),  # the target at its minimum: deployed, idle
        1: (3 * L40S + INF2, H100 + V5E),  # ceil(3 x 0.99) = 3; ceil(3 x 0.01) = 1
        5: (3 * L40S + INF2, H100 + V5E),
        25: (3 * L40S + INF2, H100 + V5E),  # ceil(3 x 0.75) = 3; ceil(3 x 0.25) = 1, ceil(2 x 0.25) = 1
        50: (2 * L40S + INF2, 2 * H100 + V5E),  # ceil(1.5) = 2 each side; ceil(2 x 0.5) = 1
        100: (2 * L40S + INF2, 3 * H100 + 2 * V5E),  # the source at its minimum
    }
    assert sorted(steps) == sorted(expected)
    for weight, (source, target) in expected.items():
        step = steps[weight]
        assert step["source_monthly"] == pytest.approx(source, abs=0.01), weight
        assert step["target_monthly"] == pytest.approx(target, abs=0.01), weight
        assert step["overlap_monthly"] == pytest.approx(source + target, abs=0.02), weight
    # Each intermediate step lasts at least its 30 min bake: 20,692.35 x 0.5 / 730 = $14.17.
    assert steps[25]["step_cost"] == pytest.approx(14.17, abs=0.01)
    assert steps[0]["step_cost"] == 0.0 and steps[100]["step_cost"] == 0.0
    assert data["source"]["service_monthly_desired"] == pytest.approx(3 * L40S + INF2, abs=0.01)
    assert data["target"]["service_monthly_desired"] == pytest.approx(3 * H100 + 2 * V5E, abs=0.01)
    assert data["per_million_requests"] == [] and "no golden set recorded yet" in data["notes"][0]


def _golden_and_reports(tmp_path: Path) -> str:
    """A golden set recorded on prod's l40s at 20 requests/s (640 generated tokens/s), and reports for
    tpu-prod's h100 at 10/s (300 tokens/s) and v5e at 25/s (1,000 tokens/s): the figures `migrate parity`
    writes (concurrency 8)."""
    header = {"accelplane_golden": 1, "protocol": "openai-completions", "model": "llm", "kind": "text",
              "performance": {"batch": {}, "concurrency": 8, "throughput_rps": 20.0, "output_tokens_per_second": 640.0},
              "recorded": {"stack": "prod", "service": "serve", "backend": "l40s"}}
    line = {"id": "p1", "request": {"prompt": "w01 w02", "max_tokens": 4}, "output": " w03 w04 w05 w06"}
    data = (json.dumps(header) + "\n" + json.dumps(line) + "\n").encode()
    (tmp_path / "parity").mkdir()
    (tmp_path / "parity" / "llm-server.golden.jsonl").write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    tpu = (find_project().root / "stacks" / "Pulumi.tpu-prod.yaml").read_text()
    for backend, rps, tokens in (("h100", 10.0, 300.0), ("v5e", 25.0, 1000.0)):
        image_line = tpu[tpu.index(f"- name: {backend}\n"):].split("image: ", 1)[1].split("\n", 1)[0]
        digest = image_line.rsplit("@sha256:", 1)[1]
        report = tmp_path / "parity" / "reports" / "llm-server" / backend / digest / f"{sha}.json"
        report.parent.mkdir(parents=True)
        report.write_text(json.dumps({"verdict": "pass", "performance": {"concurrency": 8, "throughput_rps": rps,
                                                                         "output_tokens_per_second": tokens}}))
    return sha


def test_the_cost_per_million_requests_of_each_end_from_the_parity_throughputs(tmp_path: Path) -> None:
    sha = _golden_and_reports(tmp_path)
    path = write_stacks(tmp_path, {"llm-move": [("uri: parity/llm-server.golden.jsonl",
                                                 f"uri: parity/llm-server.golden.jsonl\n        sha256: {sha}")]})
    result = _cost("--stack-file", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    found = {(r["end"], r["backend"]): r["usd"] for r in json.loads(result.stdout)["per_million_requests"]}
    # The pool an hour at its desired size over the requests an hour:
    # l40s: 3 x 1,660.7184 / 730 = $6.82487/h over 72,000 requests = $94.79 a million;
    # h100: 3 x 8,104.7125 / 730 = $33.30704/h over 36,000 = $925.20; v5e: 2 x 7,028 / 730 = $19.25479/h over 90,000
    # = $213.94.
    assert found == {("source", "l40s"): pytest.approx(94.79, abs=0.01),
                     ("target", "h100"): pytest.approx(925.20, abs=0.01),
                     ("target", "v5e"): pytest.approx(213.94, abs=0.01)}

    tokens = {(r["end"], r["backend"]): r["usd_per_million_tokens"]
              for r in json.loads(result.stdout)["per_million_requests"]}
    # The same hourly prices over the tokens an hour: l40s $6.82487 / 2,304,000 = $2.96 a million; h100
    # $33.30704 / 1,080,000 = $30.84; v5e $19.25479 / 3,600,000 = $5.35.
    assert tokens == {("source", "l40s"): pytest.approx(2.96, abs=0.01),
                      ("target", "h100"): pytest.approx(30.84, abs=0.01),
                      ("target", "v5e"): pytest.approx(5.35, abs=0.01)}

    # The other formats in this process, from the same figures (one pricing of the two ends).
    cost = migration_cost(load_migration(path), lambda end: stack_estimate(end)[0])
    assert "source l40s (infer-l40s): $94.79 per million requests at 20 requests/s, $2.96 per million tokens" \
        in FORMATS["text"](cost)
    assert "| 50% | $3,898.92 | $23,237.42 | $27,136.34 | $18.59 |" in FORMATS["markdown"](cost)
