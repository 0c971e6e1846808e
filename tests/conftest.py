"""Shared fixtures: offline graphs of the real stacks, computed once per test session; which tests
share a worker when the suite runs in parallel (pytest-xdist); what a missing prerequisite does."""

from __future__ import annotations

from typing import Any

import pytest

from accelplane.config.loader import load_stack
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph
from tests.support import prerequisites

# Tests that share an expensive set-up run on one worker when the suite runs in parallel, so it is
# built once: the mixed lab's playbook runs, which tests/support/ansible/mixed.py keeps per process
# for every vendor module, and the lab nodes' first site.yml run (tests/ansible/conftest.py
# `applied`) with the modules that start from it. (Splitting the latter in two halves, each building
# `applied`, measured no faster on 2 cores: 553 s against 549 s, three playbook streams contend.)
# Every other module, the Ansible modules that start their own nodes or none included, is its own
# unit of work, so its module-scoped fixtures are built once and it does not lengthen the lab's chain.
_GROUPS = {
    "lab-mixed": ("tests/ansible/test_nodes_ascend.py", "tests/ansible/test_nodes_gaudi.py",
                  "tests/ansible/test_nodes_neuron.py"),
    "lab": tuple(f"tests/ansible/test_nodes_{name}.py" for name in (
        "apply", "cli", "fleet_preflight", "managed_sets", "nccl_tests", "neuron_efa", "shards", "upgrade")),
}


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's scope scheduler with our groups as scopes. (Its `xdist_group` marker does not
    work with pytest 9.2: xdist 3.8 renames a test by assigning `item._nodeid`, which pytest 9.2 no
    longer reads.)"""
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetUpScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            group = next((group for group, prefixes in _GROUPS.items() if nodeid.startswith(prefixes)), None)
            return group or super()._split_scope(nodeid)

    return SharedSetUpScheduling(config, log)


# The longest units of work (measured on 2 cores: the two lab groups above, ~330 and ~220 s, then
# pyright, the air-gapped lab, parity ...), handed out first so that the run ends on short ones:
# pytest-xdist would otherwise order modules by their number of tests, which put the single
# 40-second pyright test last, alone. Only the order changes; tests are independent of it.
_LONG_FIRST = ("tests/ansible/", "tests/program/test_types.py", "tests/bundle/test_lab_air_gapped.py",
               "tests/rollout/test_rollout_parity", "tests/verify_gcp/test_verify_gcp_drift.py",
               "tests/verify/test_verify_drift.py", "tests/diff/test_diff_artifacts.py",
               "tests/cost/test_cost_diff.py", "tests/fuzz/")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath

    def rank(item: pytest.Item) -> int:
        path = item.path.relative_to(root).as_posix()
        return next((index for index, prefix in enumerate(_LONG_FIRST) if path.startswith(prefix)), len(_LONG_FIRST))

    items.sort(key=rank)  # stable: each module keeps its own order


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # the collection order above is the schedule
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


@pytest.fixture(scope="session")
def tpu_prod_graph() -> OfflineGraph:
    return offline_graph(load_stack("tpu-prod"))
