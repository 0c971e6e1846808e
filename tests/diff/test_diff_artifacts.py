"""`accelplane diff` with the stack's bundle lock in both revisions: an "artifacts" section (table,
JSON, Markdown) with what the change adds, removes and changes — a version move, a new package and
the same version with other bytes; the exit code stays the findings' (artifacts inform a review)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import accelplane.diff as diff_package
from accelplane.bundle.lockfile import Artifact, Kind, Lock
from accelplane.cli import main
from tests.diff.git_project import copy_project, init_repository
from tests.diff.kept_diff import keeping_diffs

SHA = {name: name[0] * 64 for name in ("a", "b", "c", "d", "e")}


def _deb(name: str, version: str, sha256: str) -> Artifact:
    return Artifact(Kind.deb, name, version, "amd64", f"https://repo.example/pool/{name}_{version}_amd64.deb",
                    sha256=sha256, size=1024, path=f"apt/pool/{name}_{version}_amd64.deb",
                    provenance=(("bare_metal.groups[0]", "2026-12-01T00:00:00Z"),))


def _write(path: Path, stack: str, artifacts: list[Artifact]) -> None:
    lock = Lock(stack, "2026-12-01T00:00:00Z")
    for artifact in artifacts:
        lock.add(artifact)
    lock.write(path)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = copy_project(tmp_path_factory.mktemp("diff-artifacts") / "repo")
    _write(repo / "bundle.lock.json", "dev",
           [_deb("nvidia-smi", "570.172.08-1", SHA["a"]), _deb("libnccl2", "2.27.3-1", SHA["b"])])
    init_repository(repo)  # the lock is in the base commit
    # Working tree: the driver moved, libnccl2 has other bytes at the same version, a package is new.
    _write(repo / "bundle.lock.json", "dev",
           [_deb("nvidia-smi", "580.95.05-1", SHA["c"]), _deb("libnccl2", "2.27.3-1", SHA["d"]),
            _deb("nvidia-fabricmanager-580", "580.95.05-1", SHA["e"])])
    return repo


def test_artifacts_section_in_every_format(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # One diff run (JSON, through the CLI); the table and Markdown rendered from the same PlanDiff.
    with keeping_diffs() as seen:
        assert main(["diff", "--stack", "dev", "--base", "HEAD", "--project-dir", str(repo), "--format", "json",
                     "--output", str(tmp_path / "d.json")]) == 0
    document = json.loads((tmp_path / "d.json").read_text())
    changes = {(c["op"], c["name"]): c for c in document["artifacts"]["changes"]}
    assert document["artifacts"]["lock"] == "bundle.lock.json"
    assert set(changes) == {("change", "nvidia-smi"), ("change", "libnccl2"), ("add", "nvidia-fabricmanager-580")}
    assert changes[("change", "libnccl2")]["old"]["version"] == changes[("change", "libnccl2")]["new"]["version"]
    assert document["summary"]["artifact_changes"] == 3

    table = diff_package.render(seen[0], "table")
    assert "Artifacts (bundle.lock.json):" in table
    assert "  + deb nvidia-fabricmanager-580" in table
    assert any(line.startswith("  ~ deb libnccl2") and "checksum" in line for line in table.splitlines())

    markdown = diff_package.render(seen[0], "markdown")
    assert "#### Artifacts (`bundle.lock.json`)" in markdown and "artifacts: 3 changes" in markdown
    capsys.readouterr()


def test_a_lock_of_another_stack_or_none_gives_no_section(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--stack", "prod", "--base", "HEAD", "--project-dir", str(repo), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert "artifacts" not in document and "artifact_changes" not in document["summary"]
    assert any("lock of stack dev, not prod" in note for note in document["notes"])


def test_a_missing_lock_file_is_exit_2_naming_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", "--stack", "dev", "--base", "HEAD", "--project-dir", str(repo),
                 "--lock", str(repo / "nope.json")])
    err = capsys.readouterr().err
    assert code == 2 and "nope.json" in err and "--lock" in err and "Traceback" not in err
