"""`verify()`: the declared platform against the live one, in one read-only pass.

1. the declaration's offline graph, with the identities its resources carry (`declared`);
2. the caller's account (`sts:GetCallerIdentity`): a malformed option, no credentials, an endpoint
   that cannot be reached or that is not the AWS API (an HTML page from a proxy) is an input
   problem (exit 2, naming the option or the endpoint), not a failed check;
3. the live inventory, read in parallel with the fewest calls (`inventory`);
4. the live view: live resources matched to declared ones, in the declared shape (`live_view`);
5. drift, live state, the policy rules on the live view, the endpoint probe and the checkpoint
   drill, as `CheckResult`s in one `VerifyReport` that names the account, region and endpoint it
   checked. A stack of which nothing is deployed there is one result (`drift.stack-missing`),
   not one "missing" per declared resource.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConfigNotFound,
    ConfigParseError,
    CredentialRetrievalError,
    HTTPClientError,
    InvalidRegionError,
    LoginError,
    NoAuthTokenError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
    ProfileNotFound,
    SSOError,
    TokenRetrievalError,
)
from botocore.exceptions import ConnectionError as AwsConnectionError
from botocore.parsers import ResponseParserError

from accelplane.config.loader import StackConfig
from accelplane.config.model import BucketAccess, BucketRole, WorkloadKind
from accelplane.engine.offline import Graph
from accelplane.errors import InputError
from accelplane.verify.checkpoint import checkpoint_drill
from accelplane.verify.clients import AwsClients, NotAnApiResponseError, describe_error, endpoint_url_problem
from accelplane.verify.declared import DeclaredPlatform, declared_platform
from accelplane.verify.drift import SPECS, drift_results, stack_missing
from accelplane.verify.inventory import Collector
from accelplane.verify.live_view import LiveView, build_live_view
from accelplane.verify.model import CheckId, CheckResult, Status, Subject, VerifyReport
from accelplane.verify.probe import ca_bundle_problem, probe_endpoint, probe_url_problem
from accelplane.verify.routing import idle_target_groups
from accelplane.verify.rules import rule_results
from accelplane.verify.state_checks import state_results
from accelplane.verify.text import one_line

_HERE = "accelplane verify"
# Credential providers that failed (SSO token expired, credential_process failed, ...).
_CREDENTIAL_ERRORS = (CredentialRetrievalError, TokenRetrievalError, SSOError, NoAuthTokenError, LoginError)


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
    policy_levels: Mapping[str, str] = field(default_factory=dict)  # rule id -> level (`--policy-config`)


def check_options(options: VerifyOptions) -> None:
    """Refuse malformed options before anything is read (the CLI checks them while parsing too)."""
    problems = [
        ("--endpoint-url", options.endpoint_url and endpoint_url_problem(options.endpoint_url)),
        ("--probe-url", options.probe_url and probe_url_problem(options.probe_url)),
        ("--ca-bundle", options.ca_bundle and ca_bundle_problem(options.ca_bundle)),
    ]
    for option, problem in problems:
        if problem:
            raise InputError.single(problem, file=_HERE, field=option)
    if options.checkpoint_drill not in ("download", "checksum", "off"):
        raise InputError.single(
            f"expected download, checksum or off (got {options.checkpoint_drill!r})",
            file=_HERE,
            field="--checkpoint-drill",
        )


def _clients(stack: StackConfig, options: VerifyOptions) -> AwsClients:
    try:
        return AwsClients(
            stack.platform.region,
            endpoint_url=options.endpoint_url,
            profile=options.profile,
            max_attempts=options.max_attempts,
            concurrency=options.concurrency,
        )
    except ProfileNotFound:
        raise InputError.single(
            f"no AWS profile {options.profile!r} in the AWS config files (see `aws configure list-profiles`)",
            file=_HERE,
            field="--profile",
        ) from None
    except (ConfigParseError, ConfigNotFound) as error:
        raise InputError.single(
            f"cannot read the AWS configuration: {one_line(error, 300)}", file=_HERE, field="--profile"
        ) from None


def _caller_account(clients: AwsClients) -> str:
    """The account the credentials belong to; every way this first call fails is an input problem."""
    field = "--endpoint-url" if clients.endpoint_url else "AWS endpoint"
    operation = "sts.GetCallerIdentity"
    endpoint = clients.endpoint if clients.endpoint_url else f"AWS STS in {clients.region}"
    try:
        sts = clients("sts", quick=True)
        endpoint = clients.endpoint if clients.endpoint_url else one_line(sts.meta.endpoint_url, 120)
        return str(sts.get_caller_identity()["Account"])
    except (NoCredentialsError, PartialCredentialsError):
        raise InputError.single(
            "no AWS credentials: set AWS_PROFILE (or --profile), or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY",
            file=_HERE,
            field="credentials",
        ) from None
    except ProfileNotFound as error:
        raise InputError.single(one_line(error, 300), file=_HERE, field="--profile") from None
    except _CREDENTIAL_ERRORS as error:
        raise InputError.single(
            f"cannot get AWS credentials: {describe_error(error)[1]}", file=_HERE, field="credentials"
        ) from None
    except (NoRegionError, InvalidRegionError) as error:
        raise InputError.single(one_line(error, 300), file=_HERE, field="region") from None
    except NotAnApiResponseError as error:
        raise InputError.single(f"{describe_error(error)[1]} (expected the AWS API)", file=_HERE, field=field) from None
    except AwsConnectionError as error:  # no route, refused, connect timeout, TLS, proxy
        raise InputError.single(
            f"cannot reach AWS at {endpoint}: {describe_error(error)[1]}", file=_HERE, field=field
        ) from None
    except HTTPClientError as error:  # read timeout, connection closed mid-answer
        raise InputError.single(
            f"no answer from {endpoint} to {operation}: {describe_error(error)[1]}", file=_HERE, field=field
        ) from None
    except ClientError as error:
        code, message = describe_error(error)
        raise InputError.single(
            f"AWS rejected the credentials: {code}: {message}", file=_HERE, field="credentials"
        ) from None
    except (ResponseParserError, KeyError, TypeError, ValueError) as error:
        # botocore's parsers raise these on a body of the wrong shape: not an AWS answer.
        raise InputError.single(
            f"{endpoint} answered {operation} with something that is not an AWS API response "
            f"({describe_error(error)[0]}): expected the AWS API",
            file=_HERE,
            field=field,
        ) from None
    except BotoCoreError as error:
        code, message = describe_error(error)
        raise InputError.single(f"cannot call {operation}: {code}: {message}", file=_HERE, field=field) from None


def verify(
    stack: StackConfig,
    options: VerifyOptions | None = None,
    *,
    clients: AwsClients | None = None,
    graph: Graph | None = None,
    now: datetime | None = None,
) -> VerifyReport:
    options = options or VerifyOptions()
    check_options(options)
    started = time.perf_counter()
    now = now or datetime.now(UTC)
    clients = clients or _clients(stack, options)
    declared = declared_platform(stack, graph)
    account = _caller_account(clients)
    collector = Collector(clients, declared, concurrency=options.concurrency)
    collector.inventory.account = account
    inventory = collector.collect()
    view = build_live_view(declared, collector)
    region = clients.region

    results: list[CheckResult] = []
    missing = stack_missing(declared, view, read_errors=len(inventory.errors), account=account, region=region)
    if missing is not None:
        results.append(missing)  # nothing else to check: no resource, endpoint or checkpoint to look at
    else:
        results += drift_results(declared, view)
        results += state_results(view, set(declared.types), now, idle_target_groups=idle_target_groups(declared))
        results += rule_results(view.resources, stack.platform, stack.stack, options.today or now.date(),
                                options.policy_levels).results
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
        account=account,
        region=region,
        endpoint=clients.endpoint,
        resources=sum(1 for resource in declared.resources if resource.type in SPECS),
        coverage=dict(view.read),
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
