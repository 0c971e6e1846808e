"""`verify()`: the declared platform against the live one, in one read-only pass, on any cloud.

1. the options, then a session with the stack's cloud (`LiveReader.connect`): a malformed option,
   no credentials, an endpoint that cannot be reached or that is not the cloud's API (an HTML page
   from a proxy) is an input problem (exit 2, naming the option or the endpoint), not a failed check;
2. the live platform read once (`LiveSession.read`): the declared platform, the live view in the
   declared shape, and the calls that failed;
3. drift (`drift` with the cloud's mapping), live state, the policy rules on the live view, the
   endpoint probe and the checkpoint drill, as `CheckResult`s in one `VerifyReport` that names the
   account, region and endpoint it checked. A stack of which nothing is deployed there is one
   result (`drift.stack-missing`), not one "missing" per declared resource.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from accelplane.config.loader import StackConfig
from accelplane.declaration import BucketAccess, BucketRole, WorkloadKind
from accelplane.engine.graph import OfflineGraph
from accelplane.errors import InputError
from accelplane.verify.checkpoint import DRILL_MODES, checkpoint_drill
from accelplane.verify.drift import drift_results, stack_missing
from accelplane.verify.endpoint_policy import http_url_for, http_url_problem, redirect_check, tls_versions_check
from accelplane.verify.probe import (
    Credentials,
    ca_bundle_problem,
    credentials_problem,
    probe_endpoint,
    probe_url_problem,
)
from accelplane.verify.reader import LiveRead, LiveReader, LiveSession, VerifyOptions
from accelplane.verify.restore_drill import RestoreStore, restore_drill
from accelplane.verify.results import CheckId, CheckResult, Status, VerifyReport
from accelplane.verify.rules import rule_results

_HERE = "accelplane verify"


def check_options(options: VerifyOptions, reader: LiveReader) -> None:
    """Refuse malformed options before anything is read (the CLI checks them while parsing too)."""
    problems = [
        *reader.option_problems(options),
        ("--probe-url", options.probe_url and probe_url_problem(options.probe_url)),
        ("--probe-http-url", options.probe_http_url and http_url_problem(options.probe_http_url)),
        ("--ca-bundle", options.ca_bundle and ca_bundle_problem(options.ca_bundle)),
    ]
    for option, problem in problems:
        if problem:
            raise InputError.single(problem, file=_HERE, field=option)
    credentials = credentials_problem(options.probe_token_file, options.probe_client_cert, options.probe_client_key)
    if credentials is not None:
        raise InputError.single(credentials[1], file=_HERE, field=credentials[0])
    if options.checkpoint_drill not in DRILL_MODES:
        raise InputError.single(
            f"expected {', '.join(DRILL_MODES[:-1])} or {DRILL_MODES[-1]} (got {options.checkpoint_drill!r})",
            file=_HERE,
            field="--checkpoint-drill",
        )


def verify(
    stack: StackConfig,
    options: VerifyOptions,
    *,
    reader: LiveReader,
    graph: OfflineGraph,
    now: datetime | None = None,
) -> VerifyReport:
    check_options(options, reader)
    started = time.perf_counter()
    now = now or datetime.now(UTC)
    session = reader.connect(stack, graph, options)
    read = session.read()
    declared, view = read.declared, read.view
    results: list[CheckResult] = []
    missing = stack_missing(declared, view, session.drift, read_errors=len(read.read_errors),
                            account=session.account, region=session.region)
    if missing is not None:
        results.append(missing)  # nothing else to check: no resource, endpoint or checkpoint to look at
    else:
        results += drift_results(declared, view, session.drift)
        results += session.state_results(read, now)
        results += rule_results(view.resources, stack.platform, stack.stack, options.today or now.date(),
                                options.policy_levels, read_types=session.drift.specs,
                                declared_types={r.type for r in declared.resources}).results
        results += _endpoint(session, read, options)
        results += _checkpoints(session, read, options, now)
    results += read.read_errors
    results.sort(key=lambda r: (-r.status.rank, r.check, r.type, r.name))
    return VerifyReport(
        stack=stack.stack,
        platform=stack.platform.name,
        results=results,
        api_calls=session.api_calls(),
        wall_seconds=time.perf_counter() - started,
        account=session.account,
        region=session.region,
        endpoint=session.endpoint,
        resources=sum(1 for resource in declared.resources
                      if resource.type in session.drift.specs and resource.urn not in view.not_read),
        unreadable=sum(1 for resource in declared.resources
                       if resource.type in session.drift.specs and resource.urn in view.unreadable),
        coverage=dict(view.read),
    )


def _endpoint(session: LiveSession, read: LiveRead, options: VerifyOptions) -> list[CheckResult]:
    spec = read.declared.platform.inference_endpoint
    if spec is None:
        return []
    if options.probes <= 0:
        return [CheckResult(CheckId.endpoint_health, Status.skipped, "probe disabled (--probes 0)")]
    target = session.probe_target(read, spec.listener_port, spec.health_check.path)
    url = options.probe_url or target.url
    if url is None:
        return [CheckResult(CheckId.endpoint_health, Status.failed, target.missing, **target.subject)]
    timeout = options.timeout or float(spec.health_check.timeout_seconds)
    results = probe_endpoint(
        url,
        probes=options.probes,
        timeout=timeout,
        matcher=spec.health_check.matcher,
        ca_bundle=options.ca_bundle,
        subject=target.subject,
        authenticates=", ".join(spec.client_auth.methods()) if spec.client_auth is not None else None,
        credentials=Credentials.from_files(options.probe_token_file, options.probe_client_cert,
                                           options.probe_client_key),
    )
    policy = session.endpoint_policy(read)
    if policy.minimum_tls is not None:
        results.append(tls_versions_check(url, policy, timeout=timeout, subject=target.subject))
    if policy.http_redirect:
        results.append(redirect_check(options.probe_http_url or http_url_for(url), timeout=timeout,
                                      subject=target.subject))
    return results


def _checkpoints(session: LiveSession, read: LiveRead, options: VerifyOptions, now: datetime) -> list[CheckResult]:
    platform = read.declared.platform
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
        return [CheckResult(CheckId.checkpoint_present, Status.skipped,
                            "checkpoint drill disabled (--checkpoint-drill off)")]
    store, subject = session.checkpoint_store(read, options)
    if store is None:
        return [CheckResult(CheckId.checkpoint_present, Status.failed, "no live checkpoints bucket (see drift results)",
                            **subject)]
    results: list[CheckResult] = []
    for workload, prefix in writers:
        results += checkpoint_drill(store, prefix, max_age=options.checkpoint_max_age, now=now, subject=subject,
                                    workload=workload)
        if options.checkpoint_drill != "restore":
            continue
        if isinstance(store, RestoreStore):
            results.append(restore_drill(store, prefix, now=now, subject=subject, workload=workload))
        else:
            results.append(CheckResult(CheckId.checkpoint_restore, Status.skipped,
                                       f"{workload}: the restore round-trip is built for Cloud Storage only so far",
                                       **subject))
    return results
