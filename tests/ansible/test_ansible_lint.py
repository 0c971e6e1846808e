"""ansible-lint (production profile) and ansible-playbook --syntax-check over playbooks/ and roles/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "NO_COLOR": "1",
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "PYTHONPATH": str(ROOT),
    }


def test_ansible_lint_production_profile_is_clean():
    lint = BIN / "ansible-lint"
    if not lint.exists() and shutil.which("ansible-lint") is None:
        pytest.fail("ansible-lint is not installed in this environment (requirements.txt pins it)")
    result = subprocess.run(
        [str(lint if lint.exists() else "ansible-lint"), "--profile", "production", "-f", "pep8", "playbooks", "roles"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Profile 'production' was required, and it passed" in result.stderr + result.stdout


def test_playbook_syntax_check_with_the_lab_stack_inventory():
    # One ansible-playbook run checks every playbook (it takes several): one start-up instead of three.
    playbooks = [f"playbooks/{name}" for name in ("site.yml", "validate.yml", "upgrade.yml", "preflight.yml")]
    result = subprocess.run(
        [str(BIN / "ansible-playbook"), "--syntax-check", "-i", "stacks/Pulumi.lab.yaml", *playbooks],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
