"""`rollout parity` (check the canary) and `rollout parity --record` (record the baseline), and the
lookup `advance` and `status` make of the canary's report.

Check: the golden set is read and its SHA-256 compared with the stack's pin (a changed file is
refused, exit 2); every request is sent to the canary backend directly (its own Service, or
`--canary-url`), the outputs compared (`compare`), the bounded load measured against the baseline's
recorded figures (`performance`), and the report written under its key (`report`). Exit 0 on a
pass, 1 on a fail. Record: the requests (`--requests FILE`, else the golden set's own) are sent
to the baseline, the outputs and performance written as the new golden set, and its SHA-256 pinned
in the stack file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from accelplane.cloud_support import Connection
from accelplane.config.loader import StackConfig
from accelplane.declaration import Backend, InferenceService, Parity
from accelplane.errors import InputError
from accelplane.input_files import read_bytes
from accelplane.rollout.kubernetes_api import KubernetesApi, KubernetesApiError, cluster_access, from_kubeconfig
from accelplane.rollout.parity import golden, parity_report, performance, protocol
from accelplane.rollout.parity.compare import compare
from accelplane.rollout.parity.pin import pin_golden
from accelplane.rollout.parity.storage import StoreError, store_for
from accelplane.rollout.route import RouteError

HERE = "accelplane rollout parity"


@dataclass(frozen=True)
class ParityOptions:
    baseline_url: str | None = None
    canary_url: str | None = None
    requests_file: Path | None = None
    timeout: float = 30.0  # per request
    connection: Connection = field(default_factory=Connection)  # the stack's cloud's connection options
    kube_context: str | None = None  # reach the cluster through this kubeconfig context instead


def declared_parity(stack: StackConfig, service: InferenceService) -> Parity:
    parity = service.rollout.parity if service.rollout else None
    if parity is None:
        raise InputError.single(f"service {service.name!r} declares no rollout.parity", file=str(stack.path),
                                line=stack.line_of("kubernetes"), field="rollout.parity")
    return parity


def _backend(service: InferenceService, name: str | None) -> Backend:
    return next(b for b in service.serving_backends if b.name == name)


def accelerator_of(stack: StackConfig, backend: Backend) -> str:
    pool = next((p for p in stack.platform.node_pools if p.name == backend.node_pool), None)
    return str(pool.accelerator or "cpu") if pool is not None else "unknown"


def backend_transport(stack: StackConfig, service: InferenceService, backend: Backend, url: str | None,
                      options: ParityOptions, option: str, command: str = HERE) -> protocol.Transport:
    """How to reach one backend: at `url` when given, else its own Service through the stack's cluster
    (`option` is what to give instead when the cluster cannot be reached)."""
    if url:
        return protocol.UrlTransport(url)
    context = options.kube_context
    try:
        access = from_kubeconfig(context) if context else cluster_access(stack.platform, options.connection)
        api = KubernetesApi(access)
    except (ValueError, RouteError, NotImplementedError, KubernetesApiError) as error:
        raise InputError.single(f"cannot reach backend {backend.name!r} through the cluster: {error}; give "
                                f"{option} (e.g. after `kubectl port-forward`)", file=command, field=option) from None
    workload = next(w for w in stack.platform.workloads if w.name == service.workload)
    return protocol.ServiceTransport(api, workload.namespace, service.object_name(backend), service.port)


def _read(stack: StackConfig, uri: str, connection: Connection) -> bytes | None:
    try:
        return store_for(uri, stack, connection).read(uri)
    except StoreError as error:
        raise InputError.single(str(error), file=str(stack.path), field="rollout.parity") from None


def _write(stack: StackConfig, uri: str, data: bytes, connection: Connection) -> None:
    try:
        store_for(uri, stack, connection).write(uri, data)
    except StoreError as error:
        raise InputError.single(f"{error}; nothing else written", file=str(stack.path),
                                field="rollout.parity") from None


def ask_all(transport: protocol.Transport, parity: Parity, requests: list[golden.GoldenRequest],
            timeout: float, option: str, command: str = HERE) -> tuple[list[Any], list[str]]:
    """Every request's output (None where it failed) and the failures. The first request failing
    means the backend is not there at all: bad input, naming the option to fix."""
    outputs, problems = [], []
    for index, request in enumerate(requests):
        try:
            outputs.append(protocol.ask(transport, parity, request.request, timeout)[0])
        except protocol.CallError as error:
            if index == 0:
                raise InputError.single(f"the backend did not answer: {error}", file=command, field=option) from None
            outputs.append(None)
            problems.append(f"{request.id}: no answer ({error})")
    return outputs, problems


def requests_to_record(requests_file: Path | None, golden_uri: str, existing: Callable[[], bytes | None],
                       command: str) -> list[golden.GoldenRequest]:
    """What a recording sends: `--requests FILE`, else the current golden set's own requests."""
    if requests_file is not None:
        return golden.parse_requests(read_bytes(requests_file, option="--requests"), str(requests_file))
    data = existing()
    if data is None:
        raise InputError.single(f"no golden set at {golden_uri} to take the requests from: give --requests FILE "
                                "(JSONL, one {\"id\", \"request\"} per line)", file=command, field="--requests")
    return golden.parse_requests(data, golden_uri)


def record(stack: StackConfig, service: InferenceService, options: ParityOptions, now: datetime) -> dict[str, Any]:
    parity = declared_parity(stack, service)
    requests = requests_to_record(options.requests_file, parity.golden.uri,
                                  lambda: _read(stack, parity.golden.uri, options.connection), HERE)
    baseline = _backend(service, service.rollout.baseline if service.rollout else None)
    transport = backend_transport(stack, service, baseline, options.baseline_url, options, "--baseline-url")
    outputs, problems = ask_all(transport, parity, requests, options.timeout, "--baseline-url")
    if problems:
        raise InputError.single(f"the baseline must answer every request to be recorded: {'; '.join(problems[:5])}",
                                file=HERE, field="--baseline-url")
    figures = performance.measure(transport, parity, [r.request for r in requests], options.timeout)
    header = {"accelplane_golden": golden.FORMAT, "protocol": parity.protocol.value, "model": parity.model,
              "kind": parity.compare.kind.value, "performance": figures,
              "recorded": {"backend": baseline.name, "image": baseline.image,
                           "accelerator": accelerator_of(stack, baseline), "at": now.strftime("%Y-%m-%dT%H:%M:%SZ")}}
    data = golden.GoldenSet(header, [golden.GoldenRequest(r.id, r.request, out)
                                     for r, out in zip(requests, outputs, strict=True)]).to_bytes()
    digest = golden.sha256(data)
    pinned = pin_golden(stack, service.name, digest)  # checked before anything is written
    _write(stack, parity.golden.uri, data, options.connection)
    pinned.commit()
    return {"golden": parity.golden.uri, "sha256": digest, "requests": len(requests), "backend": baseline.name,
            "performance": figures, "stack_file": str(stack.path), "lines": pinned.changed_lines,
            "where": transport.where}


def check(stack: StackConfig, service: InferenceService, options: ParityOptions, now: datetime) -> dict[str, Any]:
    parity = declared_parity(stack, service)
    if parity.golden.sha256 is None:
        raise InputError.single("no golden set recorded yet (rollout.parity.golden.sha256 is unset): run "
                                "`accelplane rollout parity --record` on the baseline first", file=str(stack.path),
                                field="rollout.parity.golden.sha256")
    data = _read(stack, parity.golden.uri, options.connection)
    if data is None:
        raise InputError.single(f"no golden set at {parity.golden.uri}", file=str(stack.path),
                                field="rollout.parity.golden.uri")
    golden_set = golden.parse_golden(data, parity.golden.uri, expect_sha256=parity.golden.sha256)
    canary = _backend(service, service.canary)
    transport = backend_transport(stack, service, canary, options.canary_url, options, "--canary-url")
    requests = golden_set.requests
    outputs, problems = ask_all(transport, parity, requests, options.timeout, "--canary-url")
    answered = [(r, out) for r, out in zip(requests, outputs, strict=True) if out is not None]
    comparison = compare(parity.compare, [r.id for r, _ in answered], [r.output for r, _ in answered],
                         [out for _, out in answered])
    figures = performance.measure(transport, parity, [r.request for r in requests], options.timeout)
    checks = comparison.checks + performance.judge(parity.performance, golden_set.header.get("performance") or {},
                                                   figures)
    all_problems = problems + comparison.problems
    passed = not all_problems and all(c.passed for c in checks)
    uri = parity_report.report_uri(parity, service, canary, parity.golden.sha256)
    result = {
        "kind": parity_report.KIND, "service": service.name, "backend": canary.name, "image": canary.image,
        "accelerator": accelerator_of(stack, canary), "at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "golden": {"uri": parity.golden.uri, "sha256": parity.golden.sha256,
                   "recorded": golden_set.header.get("recorded") or {}},
        "requests": len(requests), "where": transport.where, "verdict": "pass" if passed else "fail",
        "checks": [c.to_json() for c in checks], "problems": all_problems,
        "worst": [{"id": w.id, "detail": w.detail} for w in comparison.worst],
        "performance": figures, "baseline_performance": golden_set.header.get("performance") or {}, "uri": uri,
    }
    _write(stack, uri, parity_report.render_json(result).encode(), options.connection)
    return result


def canary_report(stack: StackConfig, service: InferenceService, connection: Connection) -> tuple[bool, str]:
    """Whether a passing report vouches for the canary's current image and the pinned golden set,
    and what to say about it."""
    parity = declared_parity(stack, service)
    if parity.golden.sha256 is None:
        return False, "no golden set recorded yet (`rollout parity --record` on the baseline)"
    canary = _backend(service, service.canary)
    uri = parity_report.report_uri(parity, service, canary, parity.golden.sha256)
    data = _read(stack, uri, connection)
    if data is None:
        return False, f"no parity report for canary {canary.name!r} at its image and golden set ({uri}): run " \
            "`accelplane rollout parity`"
    try:
        found = json.loads(data)
    except ValueError:
        return False, f"{uri} is not a parity report"
    if not parity_report.verdict(found):
        failed = [c["name"] for c in found.get("checks", []) if not c.get("passed")] + found.get("problems", [])
        return False, f"the parity report {uri} failed: {', '.join(map(str, failed[:4]))}"
    return True, f"parity passed ({found.get('at')}, {uri})"
