"""The node side runs on a supported ansible-core with its own strategies only, and a normal run
prints no deprecation warning.

ansible-core deprecated third-party strategy plugins (ansible/ansible#84725: no compatibility
guarantees, removal planned) and prints a warning for one on every run. Every lab run in this suite
goes through tests/support/ansible/lab.run, which fails on any `[DEPRECATION WARNING]` in Ansible's
output (ansible-core has no setting that makes warnings errors); these tests show that guard reads
ansible-core's real warning, and that nothing in the tree selects a strategy of its own.
"""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.ansible.lab import deprecations

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

# The smallest third-party strategy plugin: Ansible's own linear one under another name.
_STRATEGY = """
from ansible.plugins.strategy.linear import StrategyModule as _Linear

class StrategyModule(_Linear):
    pass
"""


def _playbook(tmp_path: Path, strategy: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "strategy").mkdir()
    (tmp_path / "strategy" / "third_party.py").write_text(_STRATEGY)
    tasks = [{"ansible.builtin.ping": {}}]
    play = [{"hosts": "localhost", "gather_facts": False, "strategy": strategy, "tasks": tasks}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    (tmp_path / "ansible.cfg").write_text("[defaults]\n")  # Ansible's defaults, not the project's
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(tmp_path / "ansible.cfg"),
        "ANSIBLE_HOME": str(tmp_path / "home"),
        "ANSIBLE_STRATEGY_PLUGINS": str(tmp_path / "strategy"),
        "ANSIBLE_NOCOLOR": "1",
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.run(
        [str(BIN / "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


def test_the_guard_reads_ansible_cores_own_deprecation_warning(tmp_path):
    """A third-party strategy makes ansible-core warn; the guard every lab run passes through finds it."""
    ran = _playbook(tmp_path, "third_party")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    warned = deprecations(ran.stdout + ran.stderr)
    assert warned and "strategy plugins" in warned[0], ran.stdout + ran.stderr


def test_ansible_s_own_linear_strategy_prints_no_deprecation(tmp_path):
    ran = _playbook(tmp_path, "linear")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert deprecations(ran.stdout + ran.stderr) == []


_BUILTIN_STRATEGIES = ("linear", "free", "ansible.builtin.linear", "ansible.builtin.free")


def test_no_strategy_of_our_own_anywhere():
    """No plugin directory, no ansible.cfg setting and no play picks a strategy outside ansible.builtin."""
    assert not (ROOT / "plugins" / "strategy").exists()
    config = configparser.ConfigParser()
    config.read(ROOT / "ansible.cfg")
    assert "strategy_plugins" not in config["defaults"] and "strategy" not in config["defaults"]
    for path in [*(ROOT / "playbooks").glob("*.yml"), *(ROOT / "roles").glob("*/tasks/*.yml")]:
        for play in yaml.safe_load(path.read_text()) or []:
            assert play.get("strategy", "linear") in _BUILTIN_STRATEGIES, path
    runner = (ROOT / "accelplane" / "nodes" / "runner.py").read_text()
    assert "ANSIBLE_STRATEGY" not in runner


def test_the_controller_runs_a_supported_ansible_core_on_python_3_12_or_newer():
    from ansible.release import __version__

    assert sys.version_info >= (3, 12)
    assert __version__.startswith("2.21."), __version__
