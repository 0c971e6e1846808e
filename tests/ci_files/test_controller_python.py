"""tools/controller_python.sh: the Python the Makefile and .ci/run build .venv with. python3.13,
else python3.12, from PATH (ansible-core 2.21 needs 3.12+ on the controller); a pyenv shim that
cannot run is passed over; with neither, a message that names what to install and exit 1."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "controller_python.sh"
BASH = shutil.which("bash") or "/bin/bash"
# The commands the script runs besides its interpreters; a machine's own python3.12/3.13 in
# /usr/bin would otherwise answer for the fakes.
SCRIPT_TOOLS = ("cat", "grep", "ls", "sort")


def _fake(directory: Path, name: str, *, works: bool = True) -> None:
    """A stand-in interpreter: answers the script's probe with its own name, or fails as a pyenv
    shim does for a version pyenv has not selected."""
    directory.mkdir(parents=True, exist_ok=True)
    body = f"echo /opt/fake/{name}" if works else f"echo 'pyenv: {name}: command not found' >&2; exit 127"
    (directory / name).write_text(f"#!/bin/sh\n{body}\n")
    (directory / name).chmod(0o755)


def _pick(path: str, home: Path) -> subprocess.CompletedProcess[str]:
    """The script with only `path` to search and a home without pyenv's install directory."""
    env = {key: value for key, value in os.environ.items() if key != "PYENV_ROOT"}
    env.update(PATH=path, HOME=str(home))
    return subprocess.run([BASH, str(SCRIPT)], capture_output=True, text=True, env=env, check=False)


@pytest.fixture
def system_path(tmp_path: Path) -> str:
    """A PATH with only the tools the script needs, no Python of this machine's."""
    tools = tmp_path / "system"
    tools.mkdir()
    for name in SCRIPT_TOOLS:
        (tools / name).symlink_to(shutil.which(name))
    return str(tools)


def test_python_3_13_first(tmp_path, system_path):
    _fake(tmp_path / "bin", "python3.12")
    _fake(tmp_path / "bin", "python3.13")
    picked = _pick(f"{tmp_path / 'bin'}:{system_path}", tmp_path)
    assert (picked.returncode, picked.stdout.strip()) == (0, "/opt/fake/python3.13")


def test_python_3_12_when_3_13_is_absent_or_cannot_run(tmp_path, system_path):
    _fake(tmp_path / "bin", "python3.12")
    assert _pick(f"{tmp_path / 'bin'}:{system_path}", tmp_path).stdout.strip() == "/opt/fake/python3.12"
    _fake(tmp_path / "bin", "python3.13", works=False)
    picked = _pick(f"{tmp_path / 'bin'}:{system_path}", tmp_path)
    assert (picked.returncode, picked.stdout.strip()) == (0, "/opt/fake/python3.12")


def test_pyenv_s_install_directory_when_nothing_on_path_runs(tmp_path, system_path):
    """A non-login shell without pyenv's shims on PATH: the newest 3.13 pyenv installed."""
    for version in ("3.12.1", "3.13.0", "3.13.2"):
        minor = version.rsplit(".", 1)[0]
        _fake(tmp_path / ".pyenv" / "versions" / version / "bin", f"python{minor}")
    picked = _pick(system_path, tmp_path)
    assert (picked.returncode, picked.stdout.strip()) == (0, str(tmp_path / ".pyenv/versions/3.13.2/bin/python3.13"))


def test_neither_stops_with_what_to_install(tmp_path, system_path):
    _fake(tmp_path / "bin", "python3.13", works=False)
    picked = _pick(f"{tmp_path / 'bin'}:{system_path}", tmp_path)
    assert picked.returncode == 1 and picked.stdout == ""
    assert "python3.13" in picked.stderr and "apt install python3.13" in picked.stderr
    assert "make PYTHON=" in picked.stderr


def test_the_makefile_and_ci_use_it():
    assert "tools/controller_python.sh" in (ROOT / "Makefile").read_text()
    assert "tools/controller_python.sh" in (ROOT / ".ci" / "run").read_text()
