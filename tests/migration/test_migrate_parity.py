"""`accelplane migrate parity` against real model servers on 127.0.0.1: onnxruntime serving a fixed-seed
next-word model over OpenAI completions (tests/support/models/bigram.py). The source end (prod's `serve`)
is the float32 model; the target's two serving backends (tpu-prod's `h100` and `v5e`) are its faithful
float16 conversion, or a broken conversion (twelve embedding rows swapped).

The performance bounds are far wider than the example's (p99 ratio 15, throughput ratio 0.1): with 16
requests per figure on two loaded cores a single spike decides the p99 (tests/rollout/test_rollout_parity.py
says the same). The broken model fails on its answers, which no machine's speed changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from accelplane.cli import main
from accelplane.migration.loader import load_migration
from accelplane.migration.parity_gate import target_parity
from tests.migration.test_migration_declaration import write_stacks
from tests.support.models.bigram import build, requests
from tests.support.models.running import model_servers

NOW = "2026-12-07T10:00:00Z"
EXAMPLE_PERFORMANCE = ("performance: {batch_sizes: [1, 8], concurrency: 8, requests: 64, max_latency_ratio: 1.5, "
                       "min_throughput_ratio: 0.8}")
WIDE_PERFORMANCE = ("performance: {batch_sizes: [1, 8], concurrency: 2, requests: 16, max_latency_ratio: 15, "
                    "min_throughput_ratio: 0.1, timeout: 60s}")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    yield from model_servers(tmp_path_factory.mktemp("text-models"), build,
                             {"source": "fp32", "faithful": "fp16", "broken": "broken"})


@pytest.fixture
def migration(tmp_path: Path) -> Path:
    path = write_stacks(tmp_path, {"llm-move": [(EXAMPLE_PERFORMANCE, WIDE_PERFORMANCE)]})
    (tmp_path / "requests.jsonl").write_text("\n".join(json.dumps(r) for r in requests(24)) + "\n")
    return path


def _migrate(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["migrate", "parity", *map(str, argv), "--now", NOW])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err


def _pinned(path: Path) -> str | None:
    return yaml.safe_load(path.read_text())["config"]["accelplane:migration"]["parity"]["golden"].get("sha256")


def _record(capsys: pytest.CaptureFixture[str], path: Path, servers: dict[str, str]) -> tuple[int, str, str]:
    return _migrate(capsys, "--stack-file", path, "--record", "--requests", path.parent / "requests.jsonl",
                    "--source-url", servers["source"])


def test_record_on_the_source_then_a_faithful_target_passes_and_vouches_for_advance(migration, servers, capsys):
    before = migration.read_text()
    code, out, err = _record(capsys, migration, servers)
    assert code == 0, err
    golden = (migration.parent / "parity" / "llm-server.golden.jsonl").read_bytes()
    assert _pinned(migration) == hashlib.sha256(golden).hexdigest()
    header = json.loads(golden.splitlines()[0])
    assert header["recorded"]["stack"] == "prod" and header["recorded"]["backend"] == "l40s"
    assert len(golden.splitlines()) == 25  # the header and 24 answered requests
    # One line added under the golden set's uri, nothing else changed.
    assert [line for line in migration.read_text().splitlines() if line not in before.splitlines()] == [
        f'        sha256: "{_pinned(migration)}"']
    assert target_parity(load_migration(migration), {})[0] is False  # no report yet

    code, out, err = _migrate(capsys, "--stack-file", migration, "--target-url", f"h100={servers['faithful']}",
                              "--target-url", f"v5e={servers['faithful']}", "--format", "json")
    assert code == 0, out + err
    reports = json.loads(out)["reports"]
    assert [(r["backend"], r["verdict"]) for r in reports] == [("h100", "pass"), ("v5e", "pass")]
    for report in reports:
        written = json.loads((migration.parent / report["uri"]).read_text())
        assert written["verdict"] == "pass" and written["golden"]["sha256"] == _pinned(migration)
        assert written["golden"]["recorded"]["stack"] == "prod" and written["stack"] == "tpu-prod"
        # The server reports usage.completion_tokens: the generated tokens a second are measured too.
        assert written["performance"]["output_tokens_per_second"] > 0
    assert target_parity(load_migration(migration), {}) == (True, "parity passed for every serving backend of "
                                                                   "the target")


def test_a_broken_target_backend_fails_and_advance_stays_refused(migration, servers, capsys) -> None:
    assert _record(capsys, migration, servers)[0] == 0
    code, out, _ = _migrate(capsys, "--stack-file", migration, "--target-url", f"h100={servers['faithful']}",
                            "--target-url", f"v5e={servers['broken']}")
    assert code == 1
    assert "PASS" in out and "FAIL" in out
    passed, why = target_parity(load_migration(migration), {})
    assert not passed and why.startswith("the parity report parity/reports/llm-server/v5e/") and "failed" in why


def test_a_bare_url_for_a_target_with_two_serving_backends_is_refused(migration, servers, capsys) -> None:
    assert _record(capsys, migration, servers)[0] == 0
    code, _, err = _migrate(capsys, "--stack-file", migration, "--target-url", servers["faithful"])
    assert code == 2
    assert "--target-url: the target has 2 serving backends (h100, v5e): give --target-url BACKEND=URL" in err


def test_checking_before_recording_names_the_record_step(migration, servers, capsys) -> None:
    code, _, err = _migrate(capsys, "--stack-file", migration, "--target-url", f"h100={servers['faithful']}",
                            "--target-url", f"v5e={servers['faithful']}")
    assert code == 2 and "run `accelplane migrate parity --record` on the source first" in err
    assert not (migration.parent / "parity" / "reports").exists()


def test_an_unreachable_source_records_nothing(migration, capsys, tmp_path) -> None:
    from tests.support.prometheus.server import free_port

    before = migration.read_text()
    code, _, err = _migrate(capsys, "--stack-file", migration, "--record", "--requests", tmp_path / "requests.jsonl",
                            "--source-url", f"http://127.0.0.1:{free_port()}")
    assert code == 2 and "--source-url: the backend did not answer" in err
    assert migration.read_text() == before and not (tmp_path / "parity").exists()
