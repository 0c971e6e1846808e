"""Benchmark `accelplane capacity offerings` for prod's train-h100 (AWS) and tpu-prod's train-v5p (Google
Cloud) against the local stand-ins: a moto server on 127.0.0.1 for the subnets the pool's zones come from,
with DescribeCapacityBlockOfferings answered by the tests' model-validated stub (moto has none); the
Google API fake over HTTP serving compute's `advice.calendarMode`, with a service account key exchanged at
its OAuth endpoint. Timed from a loaded stack to the offers (the reads and the answer's parsing), best and
median of 5, beside the whole command's process start floor (`accelplane --help`). Target: under 3 s.

    .venv/bin/python bench/bench_capacity.py
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RUNS = 5

from bench.local_aws import use_local_aws  # noqa: E402

use_local_aws()

from accelplane.capacity.offerings import OfferingQuery, offerings_of  # noqa: E402
from accelplane.clouds.aws.capacity_offerings import offerings_with  # noqa: E402
from accelplane.clouds.aws.clients import AwsClients  # noqa: E402
from accelplane.clouds.gcp.connection import GcpConnection  # noqa: E402
from accelplane.config.loader import load_stack  # noqa: E402
from tests.capacity.test_capacity_offerings import NOW, _block  # noqa: E402
from tests.support.aws_stubs import Answering  # noqa: E402
from tests.support.google_api_fake import GoogleApiFake  # noqa: E402
from tests.support.google_api_fake.key_file import key_file  # noqa: E402
from tests.support.moto_server import moto_server  # noqa: E402


def _timed(label: str, run) -> None:
    times, found = [], []
    for _ in range(RUNS):
        started = time.perf_counter()
        found = run()
        times.append(time.perf_counter() - started)
    print(f"{label}: best {min(times):.3f} s, median {statistics.median(times):.3f} s over {RUNS} runs; "
          f"{len(found)} offers")


def _query(stack, pool_name: str, hours: int) -> OfferingQuery:
    pool = next(p for p in stack.platform.node_pools if p.name == pool_name)
    return OfferingQuery(pool=pool, count=pool.scaling.max, hours=hours, earliest=NOW,
                         latest=NOW + dt.timedelta(days=14))


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    prod, tpu_prod = load_stack("prod"), load_stack("tpu-prod")
    start = dt.datetime(2026, 12, 9, 11, 30, tzinfo=dt.UTC)
    with moto_server() as endpoint:
        def aws_run() -> list:
            clients = AwsClients("us-west-2", endpoint_url=endpoint)  # fresh clients: no warm cache
            Answering(clients("ec2"), "DescribeCapacityBlockOfferings", lambda _params: {"CapacityBlockOfferings": [
                _block(f"cbr-0a1b2c3d4e5f6000{i}", zone, start, 2, "8806.40")
                for i, zone in enumerate(("us-west-2a", "us-west-2b", "us-west-2c"))]}).activate()
            return offerings_with(prod.platform, _query(prod, "train-h100", 48), clients)

        _timed("prod train-h100 (AWS Capacity Blocks, moto server + stub)", aws_run)
    with GoogleApiFake() as fake, tempfile.TemporaryDirectory() as work:
        fake.state.calendar = [("us-central1-a", "ct5p-hightpu-4t", 8, NOW)]  # type: ignore[attr-defined]
        os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = str(key_file(Path(work), fake.url, "acme-ml-tpu-prod", "bench"))
        facet = offerings_of("gcp")
        assert facet is not None
        connection = GcpConnection({"compute": fake.endpoint("compute", "v1")})
        _timed("tpu-prod train-v5p (calendar-mode advice, Google API fake)",
               lambda: facet.find(tpu_prod.platform, _query(tpu_prod, "train-v5p", 7 * 24), connection)[0])
    floor = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "accelplane", "--help"], capture_output=True, check=True, cwd=ROOT)
        floor.append(time.perf_counter() - started)
    print(f"CLI start-up floor (accelplane --help): best {min(floor):.2f} s, median {statistics.median(floor):.2f} s")


if __name__ == "__main__":
    main()
