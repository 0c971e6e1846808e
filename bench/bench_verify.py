"""Benchmark `accelplane verify` against a moto server holding the prod platform with 50 node pools,
and on Google Cloud: tpu-prod against the Google API fake (tests/support/google_api_fake).

The prod declaration's four pools are repeated (renamed) to 50; the platform is created in a
`ThreadedMotoServer` on 127.0.0.1 the way `pulumi up` would create it (tests/verify/moto_platform.py),
then verified through `--endpoint-url` as the CLI does. Prints wall time and the API calls by
operation, with 8 parallel calls (the default) and with 1; asserts nothing.

The call count is what matters for AWS (rate limits, cost of a run): one call per node group is
the floor (EKS has no batch describe); everything else is a paginated list call or a per-resource
read no list call answers (S3 bucket settings, KMS key rotation and policy, secret policies, VPC DNS
attributes, an EKS access entry's policies). What AWS creates untagged (the EKS cluster security
group) is read by reference in two calls whatever its number, after the other reads. moto
answers in microseconds where AWS takes tens of milliseconds, so wall time here is a lower bound:
against AWS, multiply the per-resource calls by ~30-80 ms divided by the concurrency.

The Google Cloud read is one list call per collection (node pools come with their cluster): nine
calls for tpu-prod whatever its number of pools, made one after the other.

    .venv/bin/python bench/bench_verify.py
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
POOLS = 50

# Fake credentials and nothing of this machine's AWS configuration; moto only on 127.0.0.1.
for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
    os.environ.pop(variable, None)
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_DEFAULT_REGION="us-west-2",
    AWS_CONFIG_FILE=os.devnull,
    AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    AWS_EC2_METADATA_DISABLED="true",
    MOTO_EC2_LOAD_DEFAULT_AMIS="false",
)

from moto.server import ThreadedMotoServer  # noqa: E402

from accelplane.clouds.aws.connection import AwsConnection  # noqa: E402
from accelplane.clouds.aws.verify.declared import aws_declared  # noqa: E402
from accelplane.clouds.aws.verify.reader import AwsReader  # noqa: E402
from accelplane.config.loader import StackConfig, load_stack  # noqa: E402
from accelplane.program import offline_graph  # noqa: E402
from accelplane.verify.verification import VerifyOptions, verify  # noqa: E402
from tests.support.gcp_platform import LIVE_PROJECT_NUMBER, deploy  # noqa: E402
from tests.support.gcs_emulator import gcs_emulator  # noqa: E402
from tests.support.google_api_fake import GoogleApiFake  # noqa: E402
from tests.verify.moto_platform import MotoPlatform, fill_eks_gaps, honour_secure_transport  # noqa: E402


def fifty_pool_prod() -> StackConfig:
    stack = load_stack("prod")
    # moto 5.2.5 has no EC2 placement-group API (CreatePlacementGroup answers 500): the EFA pools
    # are benchmarked without their cluster placement group.
    base = [pool.model_copy(update={"placement_group": False}) for pool in stack.platform.node_pools]
    pools = list(base)
    index = 0
    while len(pools) < POOLS:
        pool = base[index % len(base)]
        pools.append(pool.model_copy(update={"name": f"{pool.name}-{len(pools):02d}"}))
        index += 1
    platform = stack.platform.model_copy(update={"node_pools": pools})
    return StackConfig(stack=stack.stack, path=stack.path, platform=platform, config=stack.config)


def main() -> None:
    started = time.perf_counter()
    stack = fifty_pool_prod()
    graph = offline_graph(stack)
    declared = aws_declared(stack, graph)
    offline_s = time.perf_counter() - started

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no access log line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    undo = honour_secure_transport()
    undo_eks = fill_eks_gaps()
    try:
        host, port = server.get_host_and_port()
        url = f"http://{host}:{port}"
        started = time.perf_counter()
        platform = MotoPlatform(declared, endpoint_url=url).create()
        platform.register_targets()
        for workload in stack.platform.workloads:  # what each trainer writes (4 MiB + 1 MiB)
            for grant in workload.buckets:
                if workload.kind.value == "training" and grant.role.value == "checkpoints":
                    platform.write_checkpoint(
                        grant.prefix,
                        1200,
                        {"model.safetensors": os.urandom(4 << 20), "optimizer.pt": os.urandom(1 << 20)},
                    )
        build_s = time.perf_counter() - started
        aws = sum(1 for r in declared.resources if r.type.startswith("aws:"))
        print(
            f"prod platform, {len(stack.platform.node_pools)} node pools (without placement groups: no moto API): "
            f"{len(declared.resources)} declared resources ({aws} AWS); offline graph {offline_s:.1f} s; created in "
            f"moto {build_s:.1f} s"
        )

        moto = AwsConnection(endpoint_url=url)
        # Warm-up: models, matrix data.
        verify(stack, VerifyOptions(connection=moto, probes=0), graph=graph, reader=AwsReader())
        for concurrency in (8, 1):
            report = verify(stack, VerifyOptions(connection=moto, probes=0, concurrency=concurrency), graph=graph,
                            reader=AwsReader())
            calls = report.api_calls
            print(
                f"\nverify, concurrency {concurrency}: {report.wall_seconds:.2f} s wall, {calls['total']} API calls "
                f"({calls['retries']} retries, {calls['errors']} errors); {report.where()}; {report.summary_line()}"
                + (
                    ""
                    if not report.failed
                    else "  <-- FAILED: "
                    + "; ".join(f"{r.check} {r.name}" for r in report.results if r.status.value == "fail")[:400]
                )
            )
            if concurrency == 8:
                width = max(len(op) for op in calls["by_operation"])
                for operation, count in sorted(calls["by_operation"].items(), key=lambda item: (-item[1], item[0])):
                    print(f"  {operation.ljust(width)}  {count:4d}")
    finally:
        undo_eks()
        undo()
        server.stop()


def google_cloud() -> None:
    started = time.perf_counter()
    with GoogleApiFake() as fake, tempfile.TemporaryDirectory() as work, \
            gcs_emulator(Path(work), LIVE_PROJECT_NUMBER) as gcs:
        deployment = deploy(fake, gcs, "tpu-prod")
        build_s = time.perf_counter() - started
        pools = len(deployment.stack.platform.node_pools)
        print(f"\ntpu-prod on the Google API fake and gcp-storage-emulator, {pools} node pools: "
              f"built in {build_s:.1f} s")
        deployment.verify()  # warm-up: discovery documents, models
        report = deployment.verify()
        calls = report.api_calls
        print(
            f"verify: {report.wall_seconds:.2f} s wall, {calls['total']} API calls ({calls['retries']} retries, "
            f"{calls['errors']} errors); {report.where()}; {report.summary_line()}; "
            f"verified {report.verified_percent}% of {report.resources} declared resources of the types read"
        )


if __name__ == "__main__":
    main()
    google_cloud()
