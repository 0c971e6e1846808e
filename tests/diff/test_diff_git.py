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
