"""plugins/strategy/accelplane_linear.py, _parse_module_sources_once: each module and module_utils
source parsed once per run, with the same module_utils found for every module's payload.

Ansible builds a module's payload once per run and module; to find the module_utils it needs it
parses every source the module imports, so basic.py and its imports are parsed again for each
module a run uses. The tests build the dependency lists of two modules, as two payload builds do,
and count the parses.
"""

from __future__ import annotations

import datetime
import importlib.util
import io
import zipfile
from pathlib import Path

import pytest
from ansible._internal._ansiballz import _builder
from ansible._internal._datatag._tags import Origin
from ansible.executor import module_common
from ansible.plugins.loader import init_plugin_loader

ROOT = Path(__file__).resolve().parents[2]
MODULES = Path(module_common.__file__).resolve().parents[1] / "modules"


def _module_utils_of(name: str) -> list[str]:
    """The files recursive_finder puts in the payload of ansible.builtin.<name>."""
    path = MODULES / f"{name}.py"
    archive = zipfile.ZipFile(io.BytesIO(), mode="w")
    module_common.recursive_finder(
        name,
        f"ansible.modules.{name}",
        Origin(path=str(path)).tag(path.read_bytes()),
        archive,
        datetime.datetime.now(datetime.UTC),
        _builder.ExtensionManager.create(task_vars={}),
    )
    return sorted(archive.namelist())


@pytest.fixture
def parses(monkeypatch):
    """Ansible's parse counted per module name; the strategy's module loaded, its patch undone
    after the test."""
    init_plugin_loader()  # (what ansible-playbook does first: module_utils redirect through ansible.builtin)
    counted: list[str] = []
    parse = module_common._compile_module_ast

    def counting(module_name, source_code):
        counted.append(module_name)
        return parse(module_name, source_code)

    monkeypatch.setattr(module_common, "_compile_module_ast", counting)
    spec = importlib.util.spec_from_file_location(
        "accelplane_linear_under_test", ROOT / "plugins" / "strategy" / "accelplane_linear.py"
    )
    assert spec is not None and spec.loader is not None
    strategy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(strategy)
    return strategy, counted


def test_two_modules_payloads_parse_their_shared_module_utils_once_and_find_the_same_files(parses):
    strategy, counted = parses
    plain = {name: _module_utils_of(name) for name in ("stat", "copy")}
    assert counted.count("ansible.module_utils.basic") == 2  # Ansible alone: once per module
    counted.clear()

    strategy._parse_module_sources_once()
    strategy._parse_module_sources_once()  # installed once, not wrapped twice
    once = {name: _module_utils_of(name) for name in ("stat", "copy")}
    assert once == plain
    assert "ansible/module_utils/basic.py" in once["stat"]
    assert counted.count("ansible.module_utils.basic") == 1
    assert len(counted) == len(set(counted))  # nothing parsed twice
    # A second build of the same module parses nothing.
    counted.clear()
    assert _module_utils_of("stat") == plain["stat"]
    assert counted == []
