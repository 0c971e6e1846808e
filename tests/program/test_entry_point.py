"""`__main__.py` (what `pulumi up` runs) builds the same graph as the offline engine from Pulumi's
own config, and turns a bad declaration into a RunError naming the stack file's line."""

from __future__ import annotations

import asyncio
import json
import runpy
from pathlib import Path

import pulumi
import pytest
import yaml
from pulumi.runtime.stack import run_pulumi_func

from accelplane.clouds.aws.mocks import AwsLikeMocks
from accelplane.config.loader import PLATFORM_KEY
from accelplane.engine.graph import OfflineGraph
from accelplane.engine.offline import _RecordingMonitor
from tests.support.stack_files import STACKS_DIR

ENTRY = Path(__file__).resolve().parents[2] / "__main__.py"


def _run_entry_point(stack: str, platform: dict) -> OfflineGraph:
    graph = OfflineGraph(stack=stack)
    mocks = AwsLikeMocks(region=platform["region"])
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        pulumi.runtime.settings.reset_options()
        pulumi.runtime.set_all_config({PLATFORM_KEY: json.dumps(platform)})
        pulumi.runtime.set_mocks(
            mocks, project="accelplane", stack=stack, preview=True, monitor=_RecordingMonitor(mocks, graph)
        )
        loop.run_until_complete(run_pulumi_func(lambda: runpy.run_path(str(ENTRY), run_name="__main__")))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    return graph


def _declared(stack: str) -> dict:
    return yaml.safe_load((STACKS_DIR / f"Pulumi.{stack}.yaml").read_text())["config"][PLATFORM_KEY]


def test_entry_point_builds_the_offline_graph(dev_graph: OfflineGraph) -> None:
    graph = _run_entry_point("dev", _declared("dev"))
    assert sorted((r.type, r.name) for r in graph.resources) == sorted((r.type, r.name) for r in dev_graph.resources)


def test_entry_point_reports_bad_config_with_the_stack_files_line() -> None:
    platform = _declared("dev")
    platform["node_pools"][1]["instance_type"] = "g6.xlargee"
    with pytest.raises(pulumi.RunError) as raised:
        _run_entry_point("dev", platform)
    line = next(
        i
        for i, text in enumerate((STACKS_DIR / "Pulumi.dev.yaml").read_text().splitlines(), 1)
        if "instance_type: g6.xlarge" in text
    )
    assert f"Pulumi.dev.yaml:{line}: accelplane:platform.node_pools[1].instance_type" in str(raised.value)


def test_entry_point_refuses_an_incompatible_profile() -> None:
    platform = _declared("prod")
    platform["software_profiles"]["h100-cuda12"]["cuda"] = "13.2"  # the AMI's driver 580.105.08 is too old
    with pytest.raises(pulumi.RunError) as raised:
        _run_entry_point("prod", platform)
    assert "train-h100" in str(raised.value) and "incompatible" in str(raised.value)


def test_entry_point_builds_a_migration_stacks_records_as_the_offline_engine_does() -> None:
    """`pulumi up --stack llm-move`: the entry point finds the migration key and builds its records,
    the ends' StackReferences answered by mocks with the ends' own plans' outputs."""
    from accelplane.config.project import find_project
    from accelplane.migration.facets import artifact_sinks, dns_services
    from accelplane.migration.loader import load_migration
    from accelplane.migration.program import MigrationMocks
    from accelplane.program import migration_offline_graph, offline_graph

    stack = load_migration(find_project().stack_file("llm-move"))
    offline = migration_offline_graph(stack)
    ends = {end.stack: offline_graph(end).stack_outputs for end in (stack.source, stack.target)}
    mocks = MigrationMocks({"aws": dns_services()["route53"].offline_mocks(),
                            "gcp": artifact_sinks()["gcp"].offline_mocks()}, ends)
    graph = OfflineGraph(stack="llm-move")
    raw = yaml.safe_load((STACKS_DIR / "Pulumi.llm-move.yaml").read_text())["config"]["accelplane:migration"]
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        pulumi.runtime.settings.reset_options()
        # The Pulumi CLI hands structured config over as JSON, a YAML date as its text.
        pulumi.runtime.set_all_config({"accelplane:migration": json.dumps(raw, default=str)})
        pulumi.runtime.set_mocks(mocks, project="accelplane", stack="llm-move", preview=True,
                                 monitor=_RecordingMonitor(mocks, graph))
        loop.run_until_complete(run_pulumi_func(lambda: runpy.run_path(str(ENTRY), run_name="__main__")))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
    # The engine's registration order depends on which reference resolved first: compared by name.
    assert sorted((r.type, r.name, json.dumps(r.inputs, sort_keys=True)) for r in graph.resources) == sorted(
        (r.type, r.name, json.dumps(r.inputs, sort_keys=True)) for r in offline.resources)
    assert {r.name for r in graph.by_type("aws:route53/record:Record")} == {
        "llm-move-source", "llm-move-target", "llm-move-validation-0", "llm-move-validation-1"}
