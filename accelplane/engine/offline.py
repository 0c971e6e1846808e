"""Run a Pulumi program offline: Pulumi's mock engine stands in for the CLI and the cloud.

`run_offline(stack, build, mocks)` validates nothing itself; it executes the program's `build`
exactly as `pulumi preview` would (same resource registrations, same wire-format inputs), records
every registration with its parent, dependencies (per property too) and the outputs the mocks
answered with, and returns the graph. The rules follow references through those ids, ARNs and
property dependencies exactly as they do in a state export. The engine knows no program and no
cloud: `accelplane.program.offline_graph()` hands it the program's `build` and the stack's cloud's
mocks.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Callable, Mapping
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime.stack import run_pulumi_func

from accelplane.config.loader import StackConfig
from accelplane.declaration import Platform
from accelplane.engine.graph import OfflineGraph, RecordedResource

Program = Callable[[Platform], Mapping[str, Any]]  # the program's `build`: declares resources, returns outputs


class _RecordingMonitor(pulumi_mocks.MockMonitor):
    """The mock monitor, keeping what `MockResourceArgs` leaves out: parent, deps, protect."""

    def __init__(self, mocks: pulumi.runtime.Mocks, graph: OfflineGraph) -> None:
        super().__init__(mocks)
        self.graph = graph
        self.stack_urn: str | None = None

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        if request.type == "pulumi:pulumi:Stack":
            self.stack_urn = response.urn
            return response
        inputs = pulumi.runtime.rpc.deserialize_properties(request.object)
        registration = self.resources.get(response.urn)
        self.graph.resources.append(
            RecordedResource(
                urn=response.urn,
                type=request.type,
                name=request.name,
                parent=request.parent or None,
                custom=bool(request.custom),
                inputs=_plain(inputs),
                # Sorted: the engine's order depends on which awaitables resolved first.
                dependencies=tuple(sorted(request.dependencies)),
                protect=bool(request.protect),
                id=response.id or None,
                provider=request.provider or None,
                outputs=_plain(dict(registration.state)) if registration is not None and registration.state else {},
                property_dependencies={
                    key: tuple(sorted(value.urns)) for key, value in request.propertyDependencies.items() if value.urns
                },
                replace_on_changes=tuple(request.replaceOnChanges),
                delete_before_replace=bool(request.deleteBeforeReplace),
            )
        )
        return response

    def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        # A component's registered outputs, as a state export holds them (the CrossGuard stack
        # policies see outputs only).
        outputs = _plain(pulumi.runtime.rpc.deserialize_properties(request.outputs))
        for resource in self.graph.resources:
            if resource.urn == request.urn and not resource.custom and outputs:
                resource.outputs.update(outputs)
        return super().RegisterResourceOutputs(request)


def _plain(value: Any) -> Any:
    """Wire inputs as JSON-able data; secrets stay masked, never revealed in a plan."""
    if isinstance(value, dict):
        if value.get(pulumi.runtime.rpc._special_sig_key) == pulumi.runtime.rpc._special_secret_sig:
            return "[secret]"
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _config_values(config: dict[str, Any]) -> dict[str, str]:
    # Pulumi stores every config value as a string; objects as JSON (what require_object parses).
    out: dict[str, str] = {}
    for key, value in config.items():
        if isinstance(value, dict) and "secure" in value:
            continue  # ciphertext only the Pulumi CLI can decrypt: offline runs go without it
        out[key] = value if isinstance(value, str) else json.dumps(value, default=str)
    return out


def run_offline(stack: StackConfig, build: Program, mocks: pulumi.runtime.Mocks) -> OfflineGraph:
    """Execute `build(stack.platform)` under `mocks` and return the recorded graph."""
    return run_program(stack.stack, stack.project, stack.config, lambda: build(stack.platform), mocks)


def run_program(stack: str, project: str, config: dict[str, Any], build: Callable[[], Mapping[str, Any]],
                mocks: pulumi.runtime.Mocks) -> OfflineGraph:
    """Execute `build()` as stack `stack` of `project` under `mocks`; return the recorded graph, with the
    outputs `build` returns exported as the stack's."""
    graph = OfflineGraph(stack=stack, project=project)
    monitor = _RecordingMonitor(mocks, graph)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # The provider SDKs build tens of thousands of type objects on import and the engine creates
    # many short-lived futures: the cyclic collector re-scans them all and costs ~1 s of a 3 s
    # prod preview (measured: bench/bench_preview.py). Reference counting still frees memory;
    # cycles left over are collected once the run is over.
    collecting = gc.isenabled()
    gc.disable()
    try:
        pulumi.runtime.settings.reset_options()
        pulumi.runtime.set_all_config(_config_values(config))
        pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=True, monitor=monitor)

        outputs: dict[str, Any] = {}

        def program() -> None:
            outputs.update(build())
            # Resolved as `pulumi stack output --json` shows them (the mock engine registers no exports).
            pulumi.Output.from_input(outputs).apply(lambda values: graph.stack_outputs.update(_plain(values)))

        loop.run_until_complete(run_pulumi_func(program))
        graph.outputs = outputs
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        if collecting:
            gc.enable()
    return graph
