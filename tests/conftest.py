"""Shared fixtures: offline graphs of the real stacks, computed once per test session; and which
tests share a worker when the suite runs in parallel (pytest-xdist, `--dist loadgroup`)."""

from __future__ import annotations

import pytest

from accelplane.config.loader import load_stack
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph
from tests.support import prerequisites

# Tests that share an expensive set-up run on one worker, so it is built once: the lab nodes' first
# site.yml run (tests/ansible/conftest.py `applied`) and the mixed lab's playbook runs, which
# tests/support/ansible/mixed.py keeps per process for every vendor module.
_GROUPS = {
    "lab-mixed": ("tests/ansible/test_nodes_ascend.py", "tests/ansible/test_nodes_gaudi.py",
                  "tests/ansible/test_nodes_neuron.py"),
    "lab": ("tests/ansible/",),
}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        path = item.path.relative_to(root).as_posix()
        for group, prefixes in _GROUPS.items():
            if path.startswith(prefixes):
                item.add_marker(pytest.mark.xdist_group(group))
                break


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "optional(reason): the test may skip where a prerequisite is missing "
                                       "(tests/support/prerequisites.py); the summary lists it")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    prerequisites.current = item


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if isinstance(report.longrepr, tuple) and "optional (" in str(report.longrepr[2])]
    if skipped:
        terminalreporter.section("optional tests that did not run")
        for report in skipped:
            terminalreporter.line(f"{report.nodeid}: {report.longrepr[2]}")


@pytest.fixture(scope="session")
def dev_graph() -> OfflineGraph:
    return offline_graph(load_stack("dev"))


@pytest.fixture(scope="session")
def prod_graph() -> OfflineGraph:
    return offline_graph(load_stack("prod"))
