"""Benchmark `accelplane preflight` for prod (AWS) and tpu-prod (Google Cloud) against the local
stand-ins: a moto server on 127.0.0.1 over HTTP for the EC2 reads moto implements, with the reads it
lacks (Service Quotas, capacity reservations, EKS versions, public SSM parameters) answered by the
model-validated stubs of the tests; the Google API fake over HTTP for Compute, GKE, Resource Manager
and Cloud Quotas. Each is timed end to end from a loaded stack to the rendered report (connection
check, every read, the verdict), best and median of 5, with the API calls per operation. Target:
under 3 s each. Real APIs answer in tens of milliseconds, not moto's microseconds: multiply the call
count by ~50 ms for an estimate against AWS or Google (the calls are made one after the other).

    .venv/bin/python bench/bench_preflight.py
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RUNS = 5

from bench.local_aws import use_local_aws  # noqa: E402

use_local_aws()

from moto.server import ThreadedMotoServer  # noqa: E402

import accelplane.clouds.aws.verify.reader as aws_reader  # noqa: E402
from accelplane.clouds.aws.clients import AwsClients  # noqa: E402
from accelplane.clouds.aws.connection import AwsConnection  # noqa: E402
from accelplane.config.loader import load_stack  # noqa: E402
from accelplane.preflight.options import PreflightOptions  # noqa: E402
from accelplane.preflight.preflight_command import preflight  # noqa: E402
from accelplane.preflight.preflight_output import render_preflight  # noqa: E402
from tests.preflight import conftest as aws_case  # noqa: E402
from tests.support.aws_stubs import Answering  # noqa: E402
from tests.support.gcp_capacity import provision  # noqa: E402
from tests.support.google_api_fake import GoogleApiFake  # noqa: E402


def _aws_clients(endpoint: str) -> AwsClients:
    clients = AwsClients("us-west-2", endpoint_url=endpoint)
    account = aws_case.Account(clients)
    account.quotas.update({"L-1216C47A": 1152.0, "L-DB2E81BA": 512.0, "L-1945791B": 256.0, "L-2C3B7624": 1024.0})
    account.reservations[aws_case.PROD_RESERVATION] = aws_case.reservation()
    account.versions = [{"clusterVersion": "1.33", "versionStatus": "STANDARD_SUPPORT"}]
    for service, operation, answer in (
        ("service-quotas", "GetServiceQuota", aws_case._quota_answer(account)),
        ("service-quotas", "GetAWSDefaultServiceQuota", aws_case._default_answer(account)),
        ("ec2", "DescribeCapacityReservations", aws_case._reservations_answer(account)),
        ("eks", "DescribeClusterVersions", aws_case._versions_answer(account)),
        ("ssm", "GetParameter", aws_case._parameter_answer(account)),
    ):
        Answering(clients(service), operation, answer).activate()
    return clients


def _timed(label: str, run) -> None:
    times, report = [], None
    for _ in range(RUNS):
        started = time.perf_counter()
        report = run()
        times.append(time.perf_counter() - started)
    assert report is not None
    calls = report.api_calls
    print(f"{label}: best {min(times):.3f} s, median {statistics.median(times):.3f} s over {RUNS} runs; "
          f"{len(report.checks)} checks, {report.summary_line()}")
    print(f"  {calls.get('total')} API calls: " + ", ".join(f"{op} {n}" for op, n in
                                                            sorted(calls.get("by_operation", {}).items())))


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    prod, tpu_prod = load_stack("prod"), load_stack("tpu-prod")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"

        def aws_run():
            aws_reader.aws_clients = lambda *_a, **_k: _aws_clients(endpoint)  # fresh clients: no warm cache
            report = preflight(prod, PreflightOptions(connection=AwsConnection(endpoint_url=endpoint)))
            render_preflight(report, "table")
            return report

        _timed("prod (AWS, moto server + stubs)", aws_run)
    finally:
        server.stop()
    with GoogleApiFake() as fake:
        capacity = provision(fake, tpu_prod)
        import accelplane.clouds.gcp.preflight as gcp_preflight

        original = gcp_preflight.run_preflight

        def gcp_run():
            gcp_preflight.run_preflight = lambda platform, options: original(platform, options,
                                                                            clients=capacity.clients())
            try:
                report = preflight(tpu_prod, PreflightOptions())
            finally:
                gcp_preflight.run_preflight = original
            render_preflight(report, "table")
            return report

        _timed("tpu-prod (Google Cloud, API fake)", gcp_run)


if __name__ == "__main__":
    main()
