"""`accelplane migrate parity`: does the target end answer as the source end does, and as fast, for the
migration's golden set — across two clusters, often two clouds.

- `--record`: the requests (`--requests FILE`, else the golden set's own) go to the source service's
  main backend (its rollout's baseline, else the serving backend with the most weight) through the
  source's cluster, or to `--source-url` (e.g. after `kubectl port-forward`); every request must be
  answered. The answers and the bounded load's figures become the golden set at `parity.golden.uri`,
  and its SHA-256 is pinned in the migration stack file (`parity.golden.sha256`), written last.
- check: each backend serving the target service is asked the golden set through the target's cluster,
  or at `--target-url BACKEND=URL`; the outputs are compared (`parity.compare`), the load measured
  against the source's recorded figures (`parity.performance`), and a report per backend written where
  `advance` looks for it (`parity.reports`/<service>/<backend>/<image digest>/<golden SHA-256>.json, the
  rollout's layout). Every backend passing: exit 0; otherwise 1.

The golden set and the reports live in a path of the project (one tree for both ends) or in an object
store of one end's cloud (the URI scheme its `accelplane.object_stores` facet serves), read and written
with that end's connection options.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from accelplane.cloud_support import Connection
from accelplane.config.loader import StackConfig
from accelplane.declaration import Backend, InferenceService
from accelplane.errors import InputError
from accelplane.migration.checks import end_service
from accelplane.migration.stack import MigrationStack
from accelplane.rollout.parity import golden, parity_report, performance
from accelplane.rollout.parity.compare import compare
from accelplane.rollout.parity.parity_command import (
    ParityOptions,
    accelerator_of,
    ask_all,
    backend_transport,
    requests_to_record,
)
from accelplane.rollout.parity.pin import pin_migration_golden
from accelplane.rollout.parity.storage import StoreError, serves, store_for

HERE = "accelplane migrate parity"
_STAMP = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class MigrationParityOptions:
    connections: Mapping[str, Connection]  # by cloud: both ends' and the DNS's
    source_url: str | None = None
    target_urls: Mapping[str, str] | None = None  # by target backend name
    requests_file: Path | None = None
    timeout: float = 30.0


def store_end(stack: MigrationStack, uri: str) -> StackConfig:
    """The end whose store holds `uri`: either for a path in the project, else the one whose cloud serves
    the URI's scheme (bad input naming the field when neither does)."""
    for end in (stack.target, stack.source):
        if serves(uri, end):
            return end
    raise InputError.single(f"{uri}: neither end's cloud keeps files there ({stack.source.platform.cloud}, "
                            f"{stack.target.platform.cloud}); use a path in the project or an end's object store",
                            file=str(stack.path), line=stack.line_of("parity"), field="accelplane:migration.parity")


def read_file(stack: MigrationStack, uri: str, connections: Mapping[str, Connection]) -> bytes | None:
    end = store_end(stack, uri)
    try:
        return store_for(uri, end, connections.get(end.platform.cloud, Connection())).read(uri)
    except StoreError as error:
        raise InputError.single(str(error), file=str(stack.path), line=stack.line_of("parity"),
                                field="accelplane:migration.parity") from None


def write_file(stack: MigrationStack, uri: str, data: bytes, connections: Mapping[str, Connection]) -> None:
    end = store_end(stack, uri)
    try:
        store_for(uri, end, connections.get(end.platform.cloud, Connection())).write(uri, data)
    except StoreError as error:
        raise InputError.single(f"{error}; nothing else written", file=str(stack.path),
                                line=stack.line_of("parity"), field="accelplane:migration.parity") from None


def _service(stack: MigrationStack, role: str) -> InferenceService:
    service = end_service(getattr(stack, role), getattr(stack.migration, role).service)
    assert service is not None  # the loader's checks
    return service


def _options(end: StackConfig, options: MigrationParityOptions) -> ParityOptions:
    return ParityOptions(timeout=options.timeout, connection=options.connections.get(end.platform.cloud, Connection()))


def source_backend(service: InferenceService) -> Backend:
    """What answers for the source: its rollout's baseline, else the serving backend with the most weight."""
    if service.rollout is not None:
        return next(b for b in service.serving_backends if b.name == service.rollout.baseline)
    return max(service.serving_backends, key=lambda backend: backend.weight)


def record(stack: MigrationStack, options: MigrationParityOptions, now: datetime) -> dict[str, Any]:
    parity = stack.migration.parity
    requests = requests_to_record(options.requests_file, parity.golden.uri,
                                  lambda: read_file(stack, parity.golden.uri, options.connections), HERE)
    service = _service(stack, "source")
    backend = source_backend(service)
    transport = backend_transport(stack.source, service, backend, options.source_url,
                                  _options(stack.source, options), "--source-url", HERE)
    outputs, problems = ask_all(transport, parity, requests, options.timeout, "--source-url", HERE)
    if problems:
        raise InputError.single(f"the source must answer every request to be recorded: {'; '.join(problems[:5])}",
                                file=HERE, field="--source-url")
    figures = performance.measure(transport, parity, [r.request for r in requests], options.timeout)
    header = {"accelplane_golden": golden.FORMAT, "protocol": parity.protocol.value, "model": parity.model,
              "kind": parity.compare.kind.value, "performance": figures,
              "recorded": {"stack": stack.source.stack, "service": service.name, "backend": backend.name,
                           "image": backend.image, "accelerator": accelerator_of(stack.source, backend),
                           "at": now.strftime(_STAMP)}}
    data = golden.GoldenSet(header, [golden.GoldenRequest(r.id, r.request, out)
                                     for r, out in zip(requests, outputs, strict=True)]).to_bytes()
    digest = golden.sha256(data)
    pinned = pin_migration_golden(stack.path, stack.config, digest)  # checked before anything is written
    write_file(stack, parity.golden.uri, data, options.connections)
    pinned.commit()
    return {"golden": parity.golden.uri, "sha256": digest, "requests": len(requests), "stack": stack.source.stack,
            "backend": backend.name, "where": transport.where, "stack_file": str(stack.path),
            "lines": pinned.changed_lines}


def check(stack: MigrationStack, options: MigrationParityOptions, now: datetime) -> list[dict[str, Any]]:
    """One report per backend serving the target, each written where `advance` reads it."""
    parity = stack.migration.parity
    if parity.golden.sha256 is None:
        raise InputError.single("no golden set recorded yet (parity.golden.sha256 is unset): run `accelplane migrate "
                                "parity --record` on the source first", file=str(stack.path),
                                line=stack.line_of("parity"), field="accelplane:migration.parity.golden.sha256")
    data = read_file(stack, parity.golden.uri, options.connections)
    if data is None:
        raise InputError.single(f"no golden set at {parity.golden.uri}", file=str(stack.path),
                                line=stack.line_of("parity"), field="accelplane:migration.parity.golden.uri")
    golden_set = golden.parse_golden(data, parity.golden.uri, expect_sha256=parity.golden.sha256)
    service = _service(stack, "target")
    backends = [b for b in service.serving_backends if b.weight > 0]
    urls = dict(options.target_urls or {})
    unknown = sorted(set(urls) - {b.name for b in backends})
    if unknown:
        raise InputError.single(f"no backend {unknown[0]!r} serves {stack.target.stack}'s {service.name} (serving: "
                                f"{', '.join(b.name for b in backends)})", file=HERE, field="--target-url")
    # Every backend is reachable before any is asked: a missing one stops the run with nothing written.
    transports = {b.name: backend_transport(stack.target, service, b, urls.get(b.name),
                                            _options(stack.target, options), "--target-url", HERE)
                  for b in backends}
    results = [_check_backend(stack, service, backend, transports[backend.name], golden_set, options, now)
               for backend in backends]
    for result in results:
        write_file(stack, result["uri"], parity_report.render_json(result).encode(), options.connections)
    return results


def _check_backend(stack: MigrationStack, service: InferenceService, backend: Backend, transport: Any,
                   golden_set: golden.GoldenSet, options: MigrationParityOptions, now: datetime) -> dict[str, Any]:
    parity = stack.migration.parity
    assert parity.golden.sha256 is not None  # check() refused an unpinned golden set
    requests = golden_set.requests
    outputs, problems = ask_all(transport, parity, requests, options.timeout, "--target-url", HERE)
    answered = [(r, out) for r, out in zip(requests, outputs, strict=True) if out is not None]
    comparison = compare(parity.compare, [r.id for r, _ in answered], [r.output for r, _ in answered],
                         [out for _, out in answered])
    figures = performance.measure(transport, parity, [r.request for r in requests], options.timeout)
    recorded = golden_set.header.get("performance") or {}
    checks = comparison.checks + performance.judge(parity.performance, recorded, figures)
    all_problems = problems + comparison.problems
    passed = not all_problems and all(c.passed for c in checks)
    return {
        "kind": parity_report.KIND, "service": service.name, "backend": backend.name, "image": backend.image,
        "accelerator": accelerator_of(stack.target, backend), "at": now.strftime(_STAMP),
        "migration": stack.stack, "stack": stack.target.stack,
        "golden": {"uri": parity.golden.uri, "sha256": parity.golden.sha256,
                   "recorded": golden_set.header.get("recorded") or {}},
        "requests": len(requests), "where": transport.where, "verdict": "pass" if passed else "fail",
        "checks": [c.to_json() for c in checks], "problems": all_problems,
        "worst": [{"id": w.id, "detail": w.detail} for w in comparison.worst],
        "performance": figures, "baseline_performance": recorded,
        "uri": parity_report.report_uri(parity, service, backend, parity.golden.sha256),
    }
