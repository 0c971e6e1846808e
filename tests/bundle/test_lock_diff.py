"""`bundle diff`: artifacts added, removed and changed between two locks of the lab stack — the
H100 group moved from the R570 profile to R580 — read from files or from a git revision."""

from __future__ import annotations

import json
import subprocess

import pytest

from accelplane.cli import main
from tests.support.mirror.upstream import lab_upstream_stack


@pytest.fixture(scope="module")
def moved(upstream, tmp_path_factory):
    """The lock after the H100 group moved to profile h100-r580."""
    work = tmp_path_factory.mktemp("moved")

    def edit(platform):
        platform["bare_metal"]["groups"][0]["software_profile"] = "h100-r580"

    stack = lab_upstream_stack(work, upstream.url, edit=edit)
    lock = work / "bundle.lock.json"
    assert main(["bundle", "lock", "--stack-file", str(stack), "--output", str(lock)]) == 0
    return lock


def test_profile_move_shows_version_changes_added_and_removed_packages(locked, moved, capsys):
    assert main(["bundle", "diff", "--lock", str(moved), "--base-lock", str(locked), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    ops = {(c["op"], c["kind"], c["name"]): c for c in document["changes"]}
    smi = ops[("change", "deb", "nvidia-smi")]
    assert (smi["old"]["version"], smi["new"]["version"]) == ("570.172.08-1", "580.95.05-1")
    assert ("remove", "deb", "nvidia-fabricmanager-570") in ops and ("add", "deb", "nvidia-fabricmanager-580") in ops
    torch = ops[("change", "wheel", "torch")]
    assert (torch["old"]["version"], torch["new"]["version"]) == ("2.8.0+cu128", "2.9.0+cu130")
    assert ("add", "wheel", "nvidia-nccl-cu13") in ops and ("remove", "wheel", "nvidia-nccl-cu12") in ops
    # The AMD group did not move: its packages are not in the diff.
    assert not any(name in ("rccl", "rocm-core", "amdgpu-dkms") for _, _, name in ops)
    assert document["summary"] == {
        "add": sum(1 for c in document["changes"] if c["op"] == "add"),
        "remove": sum(1 for c in document["changes"] if c["op"] == "remove"),
        "change": sum(1 for c in document["changes"] if c["op"] == "change"),
    }


def test_same_version_with_new_bytes_is_a_change_naming_the_checksum(locked, tmp_path, capsys):
    document = json.loads(locked.read_text())
    target = next(a for a in document["artifacts"] if a["name"] == "libnccl2")
    target["sha256"] = "f" * 64
    head = tmp_path / "head.lock.json"
    head.write_text(json.dumps(document))
    assert main(["bundle", "diff", "--lock", str(head), "--base-lock", str(locked)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("~ deb libnccl2 2.27.3-1+cuda12.8: checksum sha256:") and out[0].endswith("f" * 64)
    assert out[-1] == "0 added, 0 removed, 1 changed"


def test_base_from_a_git_revision(locked, moved, tmp_path, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    lock = repo / "bundle.lock.json"
    lock.write_bytes(locked.read_bytes())
    subprocess.run([*git, "add", "bundle.lock.json"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    lock.write_bytes(moved.read_bytes())
    assert main(["bundle", "diff", "--lock", str(lock), "--base", "HEAD", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### Bundle lock: HEAD:bundle.lock.json")
    assert "| ~ | deb nvidia-smi 580.95.05-1 | version 570.172.08-1 -> 580.95.05-1;" in out
    assert main(["bundle", "diff", "--lock", str(lock), "--base", "no-such-ref"]) == 2
    assert "no-such-ref" in capsys.readouterr().err
