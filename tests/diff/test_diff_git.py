"""Read-only repository access: a project in a subdirectory, revisions, files at a revision, and an
export that writes nothing into the repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from accelplane.diff.git import Repository
from accelplane.errors import InputError
from tests.diff.git_project import ROOT, commit_all, git, git_state, snapshot


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    """A repository whose accelplane project lives in infra/, with two commits."""
    repo = tmp_path / "repo"
    (repo / "infra" / "stacks").mkdir(parents=True)
    shutil.copy2(ROOT / "stacks" / "Pulumi.dev.yaml", repo / "infra" / "stacks" / "Pulumi.dev.yaml")
    (repo / "README.md").write_text("not part of the project\n")
    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "dev stack")
    (repo / "infra" / "stacks" / "Pulumi.qa.yaml").write_text("config: {}\n")
    commit_all(repo, "qa stack")
    return repo


def test_project_in_a_subdirectory(nested: Path, tmp_path: Path) -> None:
    repository = Repository.around(nested / "infra")
    assert repository.top == nested.resolve() and repository.prefix == "infra/"
    base = repository.resolve("HEAD~1")
    assert len(base) == 40 and base == git(nested, "rev-parse", "HEAD~1").strip()
    assert repository.has_file(base, "stacks/Pulumi.dev.yaml")
    assert not repository.has_file(base, "stacks/Pulumi.qa.yaml")  # added by the second commit
    before, git_before = snapshot(nested), git_state(nested)
    exported = repository.export(base, tmp_path / "out")
    assert exported == tmp_path / "out" / "infra/"
    assert sorted(p.name for p in (exported / "stacks").iterdir()) == ["Pulumi.dev.yaml"]
    assert not (tmp_path / "out" / "README.md").exists()  # only the project's subtree
    assert snapshot(nested) == before and git_state(nested) == git_before


@pytest.mark.parametrize("ref", ["no-such-branch", "HEAD~5", "--output=/tmp/x", "deadbeef" * 5])
def test_revisions_that_do_not_name_a_commit_are_bad_input(nested: Path, ref: str) -> None:
    with pytest.raises(InputError) as raised:
        Repository.around(nested).resolve(ref)
    assert "--base" in str(raised.value)


def test_a_directory_outside_any_repository_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected a git repository"):
        Repository.around(tmp_path)


def test_the_export_reads_the_archive_to_its_end(nested: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """tarfile stops at the end-of-archive blocks, but git writes on up to its record size: a reader that
    closed the pipe there killed git with SIGPIPE now and then ("git archive failed:" with no message,
    seen in CI under load). A `git` that writes 1 MiB of zeros after the archive, more than a pipe holds,
    fails every time the reader stops early."""
    import os
    import stat
    import subprocess

    archive = tmp_path / "archive.tar"
    archive.write_bytes(subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=nested, capture_output=True,
                                       check=True).stdout)
    real = shutil.which("git")
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    # `archive` answers with the archive and the padding (exit status: head's, 141 if the pipe closed early);
    # anything else goes to the real git.
    fake.write_text(f'#!/bin/sh\nif [ "$1" = archive ]; then cat "{archive}"; head -c 1048576 /dev/zero; '
                    f'exit $?; fi\nexec "{real}" "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    exported = Repository.around(nested).export("HEAD", tmp_path / "out")
    assert (exported / "infra" / "stacks" / "Pulumi.qa.yaml").exists()
