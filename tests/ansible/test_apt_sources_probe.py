"""plugins/modules/apt_sources_probe.py: the node's read-only preflight in one module run — the
tools the roles call, then the stack's sources read into scratch package lists with the node's
real apt-get. Run here against this machine through `ansible localhost -m` (the module reads
/etc/apt/sources.list.d as a node's would and writes only its scratch directory)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.prerequisites import missing

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE = str(Path(sys.executable).parent / "ansible")


def _probe(tmp_path: Path, arguments: dict) -> tuple[int, dict]:
    result = subprocess.run(
        [ANSIBLE, "localhost", "-m", "apt_sources_probe", "-a", json.dumps(arguments)],
        cwd=ROOT,
        env={
            **os.environ,
            "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
            "ANSIBLE_HOME": str(tmp_path / "home"),
            "ANSIBLE_CALLBACK_RESULT_FORMAT": "json",
            "NO_COLOR": "1",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    _, _, payload = result.stdout.partition("=>")
    return result.returncode, json.loads(payload)


def _scratch_dirs() -> set[str]:
    return {entry.name for entry in Path(tempfile.gettempdir()).glob("*.accelplane-probe")}


@pytest.fixture
def flat_repository(tmp_path: Path) -> str:
    """A `file:` flat repository with an empty package index and a Release file (apt-ftparchive)."""
    if shutil.which("apt-ftparchive") is None or shutil.which("apt-get") is None:
        missing("needs apt-get and apt-ftparchive (Debian's apt-utils)")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "Packages").write_text("")
    release = subprocess.run(["apt-ftparchive", "release", str(repo)], capture_output=True, text=True, check=True)
    (repo / "Release").write_text(release.stdout)
    return f"Types: deb\nURIs: file:{repo}\nSuites: ./\nTrusted: yes\n"


def test_reads_the_stack_s_sources_into_scratch_lists_and_returns_how_to_read_them(tmp_path, flat_repository):
    rc, result = _probe(tmp_path, {"sources": flat_repository, "file_name": "accelplane.sources"})
    assert rc == 0, result
    scratch = Path(result["dir"])
    try:
        assert scratch.name.endswith(".accelplane-probe") and result["changed"] is False
        assert (scratch / "sources" / "accelplane.sources").read_text() == flat_repository
        assert any("Packages" in entry.name for entry in (scratch / "lists").iterdir())
        assert f"Dir::State::Lists={scratch}/lists" in result["apt_options"]
        assert f'Dir::State::Lists "{scratch}/lists";' in Path(result["apt_config"]).read_text()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_a_source_apt_cannot_read_fails_with_apt_s_words_and_leaves_nothing(tmp_path, flat_repository):
    before = _scratch_dirs()
    missing = flat_repository.replace(str(tmp_path / "repo"), str(tmp_path / "nowhere"))
    rc, result = _probe(tmp_path, {"sources": missing})
    assert rc != 0
    assert result["msg"].startswith("repositories: apt-get update could not read the stack's repositories: ")
    assert str(tmp_path / "nowhere") in result["msg"] and result["msg"].endswith("nothing was changed")
    assert _scratch_dirs() == before


def test_a_missing_tool_is_named_with_its_package_before_apt_runs(tmp_path, flat_repository):
    before = _scratch_dirs()
    tools = [
        {"path": "sh", "text": "sh", "package": "dash"},
        {"path": "no-such-tool-accelplane", "text": "no-such-tool (a test)", "package": "test-package"},
        {"path": "/no/such/dir", "text": "/no/such/dir (a test)", "package": "test-package"},
    ]
    rc, result = _probe(tmp_path, {"sources": flat_repository, "required_tools": tools})
    assert rc != 0
    assert result["msg"] == (
        "the node lacks no-such-tool (a test), /no/such/dir (a test): install them with the OS image "
        "(apt-get install test-package); nothing was changed"
    )
    assert _scratch_dirs() == before
