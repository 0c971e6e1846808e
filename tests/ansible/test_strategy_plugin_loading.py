"""plugins/strategy/accelplane_linear.py, _load_plugins_one_at_a_time: plugin loading that is safe
when tasks run in threads of the controller.

Ansible's plugin loader registers a plugin's module in sys.modules before it runs the module's
code, and hands out whatever it finds there. Two threads that load the same plugin for the first
time at once (two hosts' first `stat`, say) can therefore see a module whose code has not run yet.
The test makes that window wide with a plugin whose code sleeps before it defines its class.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

import pytest
from ansible.plugins import loader as plugin_loader

ROOT = Path(__file__).resolve().parents[2]

_SLOW_PLUGIN = """
import time
time.sleep(0.3)  # still running its code when a second thread asks for it


class ActionModule:
    pass
"""


def _load_concurrently(tmp_path: Path, name: str) -> list[object]:
    """What two threads get for the same plugin file loaded at the same time."""
    path = tmp_path / f"{name}.py"
    path.write_text(_SLOW_PLUGIN)
    loader = plugin_loader.action_loader
    found: list[object] = []

    def load() -> None:
        module = loader._load_module_source(python_module_name=name, path=str(path))
        found.append(getattr(module, "ActionModule", None))

    threads = [threading.Thread(target=load) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return found


@pytest.fixture
def strategy_module(monkeypatch):
    """The strategy plugin's module, with Ansible's loader method restored after the test."""
    monkeypatch.setattr(
        plugin_loader.PluginLoader, "_load_module_source", plugin_loader.PluginLoader._load_module_source
    )
    spec = importlib.util.spec_from_file_location(
        "accelplane_linear_under_test", ROOT / "plugins" / "strategy" / "accelplane_linear.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    for name in [name for name in sys.modules if name.startswith("accelplane_test_slow_plugin")]:
        del sys.modules[name]


def test_without_the_lock_a_second_thread_gets_a_plugin_whose_code_has_not_run(tmp_path, strategy_module):
    # (the hazard the lock exists for: without it, one of the two threads finds no ActionModule)
    found = _load_concurrently(tmp_path, "accelplane_test_slow_plugin_unlocked")
    assert None in found


def test_with_the_lock_both_threads_get_the_fully_loaded_plugin(tmp_path, strategy_module):
    strategy_module._load_plugins_one_at_a_time()
    strategy_module._load_plugins_one_at_a_time()  # installed once, not wrapped twice
    found = _load_concurrently(tmp_path, "accelplane_test_slow_plugin_locked")
    assert len(found) == 2 and None not in found
    assert found[0] is found[1]
