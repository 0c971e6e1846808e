"""Shared fixtures: offline graphs of the real stacks, computed once per test session."""

from __future__ import annotations

import pytest

from accelplane.config.loader import load_stack
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph


@pytest.fixture(scope="session")
def dev_graph() -> OfflineGraph:
    return offline_graph(load_stack("dev"))


@pytest.fixture(scope="session")
def prod_graph() -> OfflineGraph:
    return offline_graph(load_stack("prod"))
