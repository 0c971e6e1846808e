"""`verify()`: the declared platform against the live one, in one read-only pass.

1. the declaration's offline graph, with the identities its resources carry (`declared`);
2. the caller's account (`sts:GetCallerIdentity`): no credentials or no endpoint is an input problem
   (exit 2), not a failed check;
3. the live inventory, read in parallel with the fewest calls (`inventory`);
4. the live view: live resources matched to declared ones, in the declared shape (`live_view`);
5. drift, live state, the policy rules on the live view, the endpoint probe and the checkpoint
   drill, as `CheckResult`s in one `VerifyReport`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from botocore.exceptions import (
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
)

from accelplane.config.loader import StackConfig
from accelplane.config.model import BucketAccess, BucketRole, WorkloadKind
from accelplane.engine.offline import Graph
from accelplane.errors import InputError
from accelplane.verify.checkpoint import checkpoint_drill
from accelplane.verify.clients import AwsClients
from accelplane.verify.declared import DeclaredPlatform, declared_platform
from accelplane.verify.drift import drift_results
from accelplane.verify.inventory import Collector
from accelplane.verify.live_view import LiveView, build_live_view
from accelplane.verify.model import CheckId, CheckResult, Status, Subject, VerifyReport
from accelplane.verify.probe import probe_endpoint
from accelplane.verify.rules import rule_results
from accelplane.verify.state_checks import state_results


@dataclass(frozen=True)
class VerifyOptions:
    endpoint_url: str | None = None
    profile: str | None = None
    probes: int = 5
    timeout: float | None = None  # per probe; default: the declared health check's timeout
    probe_url: str | None = None  # default: https://<ALB DNS name>[:port]<health check path>
    ca_bundle: str | None = None
    checkpoint_max_age: timedelta | None = None
    checkpoint_drill: str = "download"  # download | checksum | off
    concurrency: int = 8
    max_attempts: int = 10
    today: date | None = None


def _caller_account(clients: AwsClients) -> str:
    where = "--endpoint-url" if clients.endpoint_url else "AWS credentials"
    try:
        return str(clients("sts", quick=True).get_caller_identity()["Account"])
    except (NoCredentialsError, PartialCredentialsError):
        raise InputError.single(
            "no AWS credentials: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY",
            file="accelplane verify",
            field="credentials",
        ) from None
    except EndpointConnectionError as error:
        raise InputError.single(f"cannot reach AWS: {error}", file="accelplane verify", field=where) from None
    except NoRegionError as error:
        raise InputError.single(str(error), file="accelplane verify", field="region") from None
    except ClientError as error:
        message = error.response.get("Error", {}).get("Message", str(error))
        raise InputError.single(
            f"AWS rejected the credentials: {message}", file="accelplane verify", field="credentials"
        ) from None


def verify(
    stack: StackConfig,
    options: VerifyOptions | None = None,
    *,
    clients: AwsClients | None = None,
    graph: Graph | None = None,
    now: datetime | None = None,
) -> VerifyReport:
    options = options or VerifyOptions()
    started = time.perf_counter()
    now = now or datetime.now(UTC)
    declared = declared_platform(stack, graph)
    clients = clients or AwsClients(
        stack.platform.region,
        endpoint_url=options.endpoint_url,
        profile=options.profile,
        max_attempts=options.max_attempts,
        concurrency=options.concurrency,
    )
    account = _caller_account(clients)
    collector = Collector(clients, declared, concurrency=options.concurrency)
    collector.inventory.account = account
    inventory = collector.collect()
    view = build_live_view(declared, collector)

    results: list[CheckResult] = []
    results += drift_results(declared, view)
    results += state_results(view, set(declared.types), now)
    results += rule_results(view.resources, stack.platform, stack.stack, options.today or now.date()).results
    results += _endpoint(declared, view, options)
    results += _checkpoints(declared, view, clients, options, now)
    for error in inventory.errors:
        results.append(
            CheckResult(
                CheckId.read_error,
                Status.failed,
                f"{error.operation} on {error.resource} failed: {error.code}: {error.message}",
            )
        )
    results.sort(key=lambda r: (-r.status.rank, r.check, r.type, r.name))
    return VerifyReport(
        stack=stack.stack,
        platform=stack.platform.name,
        results=results,
        api_calls=clients.calls.to_json(),
        wall_seconds=time.perf_counter() - started,
    )


def _endpoint(declared: DeclaredPlatform, view: LiveView, options: VerifyOptions) -> list[CheckResult]:
    spec = declared.platform.inference_endpoint
    if spec is None or options.probes <= 0:
        if spec is not None:
            return [CheckResult(CheckId.endpoint_health, Status.skipped, "probe disabled (--probes 0)")]
        return []
    lb = next((r for r in view.matched.values() if r.type == "aws:lb/loadBalancer:LoadBalancer"), None)
    subject: Subject = {"type": lb.type, "name": lb.name, "urn": lb.urn} if lb else {}
    url = options.probe_url
    if url is None:
        dns = lb.outputs.get("dnsName") if lb else None
        if not dns:
            return [
                CheckResult(
                    CheckId.endpoint_health,
                    Status.failed,
                    "no live load balancer to probe (see drift results)",
                    **subject,
                )
            ]
        port = "" if spec.listener_port == 443 else f":{spec.listener_port}"
        url = f"https://{dns}{port}{spec.health_check.path}"
    return probe_endpoint(
        url,
        probes=options.probes,
        timeout=options.timeout or float(spec.health_check.timeout_seconds),
        matcher=spec.health_check.matcher,
        ca_bundle=options.ca_bundle,
        subject=subject,
    )


def _checkpoints(
    declared: DeclaredPlatform, view: LiveView, clients: AwsClients, options: VerifyOptions, now: datetime
) -> list[CheckResult]:
    platform = declared.platform
    writers = [
        (workload.name, grant.prefix)
        for workload in platform.workloads
        if workload.kind is WorkloadKind.training
        for grant in workload.buckets
        if grant.role is BucketRole.checkpoints and grant.access in (BucketAccess.write, BucketAccess.read_write)
    ]
    if not writers:
        return []
    if options.checkpoint_drill == "off":
        return [
            CheckResult(
                CheckId.checkpoint_present, Status.skipped, "checkpoint drill disabled (--checkpoint-drill off)"
            )
        ]
    bucket = next(
        (
            live
            for live in view.matched.values()
            if live.type == "aws:s3/bucket:Bucket" and live.tags().get("accelplane.io/bucket-role") == "checkpoints"
        ),
        None,
    )
    if bucket is None:
        return [
            CheckResult(
                CheckId.checkpoint_present,
                Status.failed,
                "no live checkpoints bucket (see drift results)",
                type="aws:s3/bucket:Bucket",
            )
        ]
    subject: Subject = {"type": bucket.type, "name": bucket.name, "urn": bucket.urn}
    results: list[CheckResult] = []
    for workload, prefix in writers:
        results += checkpoint_drill(
            clients("s3"),
            str(bucket.id),
            prefix,
            max_age=options.checkpoint_max_age,
            mode=options.checkpoint_drill,
            concurrency=options.concurrency,
            now=now,
            subject=subject,
            workload=workload,
        )
    return results
