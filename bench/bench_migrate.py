"""Benchmark `accelplane migrate status` for the example migration (prod → tpu-prod, both prod-sized)
against local servers: moto's Route 53 server on 127.0.0.1 holding the weighted records, and one real
Prometheus per end (Debian's package) over recorded series. Whole process, as a person runs it (load
and check the migration and both ends, read the live weights, ten instant queries, render), best and
median of 5, beside the floor of starting the CLI at all (`accelplane --help`). Target: ≤ 2 s.

    .venv/bin/python bench/bench_migrate.py
"""

from __future__ import annotations

import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RUNS = 5

from moto.server import ThreadedMotoServer  # noqa: E402

from tests.migration import test_migrate_commands as case  # noqa: E402
from tests.support.prometheus.server import backfilled  # noqa: E402


def _timed(command: list[str], env: dict[str, str]) -> list[float]:
    seconds = []
    for _ in range(RUNS):
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
        seconds.append(time.perf_counter() - started)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return seconds


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's server logs every request
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: bytecode cached after the first run
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    moto_url = f"http://{host}:{port}"
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        path, zone = case._stacks(work, moto_url, "bench")
        path.write_text(path.read_text().replace("    weight: 0", "    weight: 5"))
        case._route53_weights(moto_url, zone, path, 5)
        (work / "source").mkdir()
        (work / "target").mkdir()
        with backfilled(work / "source", case._openmetrics("serve", 40, 0.08, 0.0)) as source, \
                backfilled(work / "target", case._openmetrics("llm-server", 40, 0.09, 0.0)) as target:
            command = [sys.executable, "-m", "accelplane", "migrate", "status", "--stack-file", str(path),
                       "--endpoint-url", moto_url, "--source-prometheus-url", source.url,
                       "--target-prometheus-url", target.url, "--now", case._at(case.NOW + timedelta(seconds=5))]
            status = _timed(command, env)
            shown = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=True).stdout
            floor = _timed([sys.executable, "-m", "accelplane", "--help"], env)
    server.stop()
    print("accelplane migrate status (prod -> tpu-prod, moto Route 53, two real Prometheus servers)")
    print(f"  whole process: best {min(status):.2f} s, median {statistics.median(status):.2f} s (target <= 2 s)")
    print("  what it read: " + "; ".join(line.strip() for line in shown.splitlines()[1:6]))
    print(f"  CLI start-up floor (accelplane --help): best {min(floor):.2f} s, median {statistics.median(floor):.2f} s")


if __name__ == "__main__":
    main()
