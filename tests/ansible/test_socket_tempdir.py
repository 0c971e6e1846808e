"""The Ansible controller gets a temporary directory its RPC socket fits in (socket_tempdir.py).

ansible-core 2.21 binds a multiprocessing listener at `$TMPDIR/pymp-XXXXXXXX/listener-XXXXXXXX`
when a playbook starts; with a TMPDIR over 75 bytes the bind fails and the run dies with "Local
RPC server did not start" (a CI run met it once pytest's base temporary directory reached
`pytest-100`). The limits here are checked against the kernel: a real listener is bound."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import ansible_runner
import pytest

from accelplane.errors import InputError
from accelplane.nodes import socket_tempdir
from accelplane.nodes.runner import run_playbook

ROOT = Path(__file__).resolve().parents[2]
LAB_STACK = ROOT / "stacks" / "Pulumi.lab.yaml"

# Linux sun_path is 108 bytes with its NUL; multiprocessing adds "/pymp-" + 8 and "/listener-" + 8:
# 107 - 14 - 18 = 75 bytes for the directory (worked out by hand, not read from the module).
LONGEST_DIRECTORY = 75


def _directory_of_length(parent: Path, length: int) -> Path:
    path = parent / ("d" * (length - len(str(parent)) - 1))
    path.mkdir()
    assert len(str(path)) == length
    return path


def _listener_binds_under(tmpdir: Path) -> bool:
    """Whether multiprocessing's own AF_UNIX listener (what ansible-core's manager opens) binds there."""
    code = "from multiprocessing.connection import Listener; Listener(family='AF_UNIX').close()"
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True).returncode == 0


@pytest.fixture
def short_parent() -> Path:
    """A parent short enough to build directories of exactly 75 and 76 bytes in (pytest's is too long)."""
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="ap") as parent:
        yield Path(parent)


def test_the_longest_directory_a_listener_binds_under_is_the_one_the_module_allows(short_parent):
    longest = _directory_of_length(short_parent, LONGEST_DIRECTORY)
    too_long = _directory_of_length(short_parent, LONGEST_DIRECTORY + 1)
    assert _listener_binds_under(longest)
    assert not _listener_binds_under(too_long)
    assert socket_tempdir.fits(str(longest))
    assert not socket_tempdir.fits(str(too_long))


def test_a_tmpdir_that_fits_is_left_as_it_is(short_parent):
    assert socket_tempdir.controller_tempdir(str(_directory_of_length(short_parent, LONGEST_DIRECTORY))) is None


def test_a_tmpdir_too_long_falls_back_to_the_first_system_directory_that_takes_the_socket(short_parent):
    too_long = _directory_of_length(short_parent, LONGEST_DIRECTORY + 1)
    missing = str(short_parent / "missing")
    chosen = socket_tempdir.controller_tempdir(str(too_long), candidates=(missing, "/tmp", "/var/tmp"))
    assert chosen == "/tmp"
    assert _listener_binds_under(Path(chosen))


def test_nowhere_short_enough_is_refused_naming_tmpdir_and_the_limit(short_parent):
    too_long = _directory_of_length(short_parent, 90)
    with pytest.raises(InputError) as refused:
        socket_tempdir.controller_tempdir(str(too_long), candidates=(str(short_parent / "missing"),))
    message = str(refused.value)
    assert "TMPDIR" in message and str(too_long) in message and "90 bytes" in message and "at most 75" in message


def _run_with_tmpdir(tmp: Path, monkeypatch) -> dict[str, str]:
    seen: dict[str, str] = {}

    def stand_in(**kwargs):
        seen.update(kwargs["envvars"])
        return type("Run", (), {"rc": 0, "status": "successful"})()

    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    monkeypatch.setattr(ansible_runner, "run", stand_in)
    run_playbook("validate.yml", LAB_STACK)
    return seen


def test_the_runner_gives_ansible_a_short_tmpdir_when_the_user_s_is_too_long(tmp_path, monkeypatch):
    long_tmp = tmp_path / ("t" * 90)  # pytest's tmp_path plus 90 bytes is over 75 whatever the base
    long_tmp.mkdir()
    assert _run_with_tmpdir(long_tmp, monkeypatch)["TMPDIR"] == "/tmp"


def test_the_runner_leaves_a_short_tmpdir_to_ansible(short_parent, monkeypatch):
    assert "TMPDIR" not in _run_with_tmpdir(short_parent, monkeypatch)


def test_the_cli_refuses_a_tmpdir_too_long_with_nowhere_shorter_and_starts_nothing(tmp_path, monkeypatch, capsys):
    """Exit 2 naming TMPDIR before any run directory exists (and before Ansible starts)."""
    from accelplane.cli import main

    long_tmp = tmp_path / ("t" * 90)
    long_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(long_tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr(socket_tempdir, "SYSTEM_TEMP_DIRS", (str(tmp_path / "missing"),))
    monkeypatch.setattr(ansible_runner, "run", lambda **_: pytest.fail("Ansible started"))
    assert main(["nodes", "validate", "--stack-file", str(LAB_STACK)]) == 2
    err = capsys.readouterr().err
    assert "TMPDIR" in err and "at most 75 bytes" in err and "Traceback" not in err
    assert list(long_tmp.iterdir()) == []
