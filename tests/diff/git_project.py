"""Throw-away git repositories holding a copy of this project, for `accelplane diff` tests.

The copy carries what the engine needs (the package, stacks, schema, Pulumi.yaml) from this
working tree, so the revisions in it run the same code the tests import. Git runs with no user
or system configuration, so a developer's hooks, signing or aliases cannot change the outcome.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_COPIED_DIRS = ("accelplane", "stacks", "schema")
_COPIED_FILES = ("Pulumi.yaml", "pyproject.toml", ".gitignore")
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "accelplane tests",
    "GIT_AUTHOR_EMAIL": "tests@accelplane.invalid",
    "GIT_COMMITTER_NAME": "accelplane tests",
    "GIT_COMMITTER_EMAIL": "tests@accelplane.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True,
                            check=True)
    return result.stdout


def copy_project(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in _COPIED_DIRS:
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    for name in _COPIED_FILES:
        shutil.copy2(ROOT / name, dest / name)
    return dest


def init_repository(project: Path) -> str:
    """Make `project` a repository with everything in one commit; return the commit id."""
    git(project, "init", "-q", "-b", "main")
    return commit_all(project, "base: the project as it is")


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace `old` by `new` exactly `count` times (fails loudly when the project's text moved)."""
    text = path.read_text()
    assert text.count(old) == count, f"expected {count} of {old!r} in {path}, found {text.count(old)}"
    path.write_text(text.replace(old, new))


def snapshot(repo: Path) -> tuple[str, dict[str, str]]:
    """`git status` (ignored files included) and the hash of every file outside .git."""
    status = git(repo, "status", "--porcelain=v1", "--ignored", "--untracked-files=all")
    hashes = {}
    for path in sorted(repo.rglob("*")):
        if ".git" in path.relative_to(repo).parts or not path.is_file():
            continue
        hashes[path.relative_to(repo).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return status, hashes


def git_state(repo: Path) -> dict[str, str]:
    """What a diff must not touch inside .git: refs, HEAD, the index and worktree registrations."""
    git_dir = repo / ".git"
    state = {"HEAD": (git_dir / "HEAD").read_text(), "refs": git(repo, "show-ref"),
             "worktrees": git(repo, "worktree", "list", "--porcelain")}
    index = git_dir / "index"
    state["index"] = hashlib.sha256(index.read_bytes()).hexdigest() if index.exists() else ""
    return state
