"""Run GCP components under `GcpLikeMocks` and record what they register, as the offline engine does.

The recording is the offline engine's own (`accelplane.engine.offline`): the same wire-format
(camelCase) inputs, outputs, parents and dependencies `preview --json` writes. On top of it this
harness keeps the resource options that decide replacements (`replaceOnChanges`,
`deleteBeforeReplace`, `ignoreChanges`, `retainOnDelete`) and resolves the Outputs the build
returns, so tests can assert on component outputs too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime.stack import run_pulumi_func

from accelplane.clouds.gcp.mocks import GcpLikeMocks
from accelplane.engine.graph import OfflineGraph, RecordedResource
from accelplane.engine.offline import _RecordingMonitor

PROJECT = "acme-ml-prod"
REGION = "us-east5"
PROJECT_NUMBER = "987654321098"


@dataclass
class Run:
    graph: OfflineGraph
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # urn -> resource options
    outputs: dict[str, Any] = field(default_factory=dict)  # what the build returned, resolved
    mocks: GcpLikeMocks | None = None

    def named(self, name: str) -> RecordedResource:
        return self.graph.named(name)

    def of_type(self, token: str) -> list[RecordedResource]:
        return self.graph.by_type(token)

    def option(self, resource: RecordedResource, key: str) -> Any:
        return self.options[resource.urn][key]

    def children(self, parent: RecordedResource) -> list[RecordedResource]:
        return [r for r in self.graph.resources if r.parent == parent.urn]


class _OptionsMonitor(_RecordingMonitor):
    def __init__(self, mocks: pulumi.runtime.Mocks, graph: OfflineGraph, options: dict[str, dict[str, Any]]) -> None:
        super().__init__(mocks, graph)
        self.options = options

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        self.options[response.urn] = {
            "replaceOnChanges": list(request.replaceOnChanges),
            "deleteBeforeReplace": bool(request.deleteBeforeReplace),
            "ignoreChanges": list(request.ignoreChanges),
            "retainOnDelete": bool(request.retainOnDelete),
        }
        return response


def run_components(
    build: Callable[[], Mapping[str, Any] | None],
    *,
    project: str = PROJECT,
    region: str = REGION,
    project_number: str = PROJECT_NUMBER,
    stack: str = "gcp-components",
) -> Run:
    """Call `build()` (which creates components) under mocks; return the recorded run."""
    graph = OfflineGraph(stack=stack)
    run = Run(graph=graph)
    mocks = GcpLikeMocks(project=project, region=region, project_number=project_number)
    run.mocks = mocks
    monitor = _OptionsMonitor(mocks, graph, run.options)
    returned: dict[str, Any] = {}
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        pulumi.runtime.settings.reset_options()
        pulumi.runtime.set_mocks(mocks, project="accelplane", stack=stack, preview=True, monitor=monitor)

        def program() -> None:
            returned.update(build() or {})

        loop.run_until_complete(run_pulumi_func(program))
        for key, value in returned.items():
            run.outputs[key] = loop.run_until_complete(_resolve(value))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    return run


async def _resolve(value: Any) -> Any:
    if isinstance(value, pulumi.Output):
        return await value.future()
    if isinstance(value, dict):
        return {k: await _resolve(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [await _resolve(v) for v in value]
    return value
