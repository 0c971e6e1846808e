"""Shared fixtures: offline graphs of the real stacks, computed once per test session."""

from __future__ import annotations

import pytest

from accelplane.config.loader import load_stack
from accelplane.engine.offline import Graph, run_offline


@pytest.fixture(scope="session")
def dev_graph() -> Graph:
    return run_offline(load_stack("dev"))


@pytest.fixture(scope="session")
def prod_graph() -> Graph:
    return run_offline(load_stack("prod"))
