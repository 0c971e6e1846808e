"""Every top-level component the program creates maps to the declaration element it is built from,
so a finding on any resource points at the stack-file line where the fix goes — a new component
without an entry in `declaration_paths()` fails here instead of pointing at the top of the file."""

from __future__ import annotations

import pytest

from accelplane.config.loader import load_stack
from accelplane.engine.graph import from_offline_graph
from accelplane.engine.provenance import declaration_paths, finding_lines
from accelplane.program import offline_graph

STACK_TYPE = "pulumi:pulumi:Stack"


@pytest.mark.parametrize("name", ["dev", "prod", "lab", "tpu-dev", "tpu-prod"])
def test_every_top_level_component_has_a_declaration_path(name: str) -> None:
    stack = load_stack(name)
    graph = offline_graph(stack)
    paths = declaration_paths(stack.platform)
    top = [r for r in graph.resources if r.parent is None or r.parent.rsplit("::", 2)[-2] == STACK_TYPE]
    assert top
    assert [(r.type, r.name) for r in top if (r.type, r.name) not in paths] == []


@pytest.mark.parametrize("name", ["dev", "prod", "tpu-prod"])
def test_every_resource_gets_a_line_inside_the_declaration(name: str) -> None:
    stack = load_stack(name)
    resources = from_offline_graph(offline_graph(stack))
    lines = finding_lines(stack.platform, stack.line_of, resources)
    platform_line = stack.line_of()
    assert set(lines) == {r.urn for r in resources}
    assert platform_line is not None and all(line > platform_line for line in lines.values())


def test_a_node_pool_s_resources_point_at_the_pool() -> None:
    stack = load_stack("prod")
    resources = from_offline_graph(offline_graph(stack))
    lines = finding_lines(stack.platform, stack.line_of, resources)
    index = next(i for i, pool in enumerate(stack.platform.node_pools) if pool.name == "train-h100")
    pool_line = stack.line_of("node_pools", index)
    node_group = next(r for r in resources if r.name == "acme-ml-train-h100-ng")
    assert pool_line is not None and lines[node_group.urn] == pool_line
