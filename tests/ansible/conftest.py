"""Fixtures of the Ansible tests: lab nodes (overlay copies of a cached Debian root, reached with
the chroot connection), the lab repository of stand-in packages, and an applied snapshot.

They need root (mounts, chroot, network namespaces). Without root they skip, except in CI
(CI=true), where a missing prerequisite fails the run instead.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import importlib  # noqa: E402

# The node modules import their shared helpers as `ansible.module_utils.<name>`, which Ansible
# resolves from ansible.cfg's `module_utils` directory when it builds a module's payload. The unit
# tests import the modules directly, so they get the same file under the same name here.
for _name in ("debian_packages",):
    sys.modules.setdefault(f"ansible.module_utils.{_name}",
                           importlib.import_module(f"accelplane.ansible_module_utils.{_name}"))

from tests.support.ansible import lab, nodes, rootfs  # noqa: E402
from tests.support.ansible.catalog import build_lab  # noqa: E402
from tests.support.ansible.prereqs import require_lab  # noqa: E402


@pytest.fixture(scope="session")
def lab_root() -> Path:
    require_lab()
    return rootfs.ensure_rootfs()


@pytest.fixture(scope="session")
def lab_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_lab()
    return build_lab(tmp_path_factory.mktemp("lab-repo"))


class NodeFactory:
    def __init__(self, work: Path, lower: Path, repo: Path):
        self.work, self.lower, self.repo = work, lower, repo
        self.started: list[nodes.LabNode] = []

    def __call__(self, name: str, vendor: str = "nvidia", snapshot: Path | None = None) -> nodes.LabNode:
        node = nodes.start_node(name, self.work / "nodes", self.lower, self.repo, vendor, from_snapshot=snapshot)
        self.started.append(node)
        return node

    def stop(self) -> None:
        for node in reversed(self.started):
            nodes.stop_node(node)


@pytest.fixture
def make_node(tmp_path: Path, lab_root: Path, lab_repo: Path) -> Iterator[NodeFactory]:
    factory = NodeFactory(tmp_path, lab_root, lab_repo)
    yield factory
    factory.stop()


class Applied:
    """The first site.yml run of the session: an H100 node (h100-r570) and an MI300X node."""

    def __init__(self, result, h100: Path, mi300x: Path, h100_report: dict, mi300x_report: dict):
        self.result = result
        self.h100 = h100
        self.mi300x = mi300x
        self.h100_report = h100_report
        self.mi300x_report = mi300x_report


@pytest.fixture(scope="session")
def applied(tmp_path_factory: pytest.TempPathFactory, lab_root: Path, lab_repo: Path) -> Applied:
    import json

    work = tmp_path_factory.mktemp("applied")
    factory = NodeFactory(work, lab_root, lab_repo)
    try:
        h100 = factory("h100-01")
        amd = factory("mi300x-01", vendor="amd")
        stack = lab.write_stack(
            work, {"h100-train": [("h100-01", h100.root)], "mi300x-infer": [("mi300x-01", amd.root)]}
        )
        result = lab.run("site.yml", stack, work)
        assert result.rc == 0, lab.failure(result)
        snapshots = work / "snapshots"
        return Applied(
            result,
            nodes.snapshot(h100, snapshots / "h100"),
            nodes.snapshot(amd, snapshots / "mi300x"),
            json.loads((result.report_dir / "h100-01.json").read_text()),
            json.loads((result.report_dir / "mi300x-01.json").read_text()),
        )
    finally:
        factory.stop()
