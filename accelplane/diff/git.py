"""Read-only access to the git repository holding the project: resolve a revision, test for a file
in it, and write a revision's copy of the project into a directory outside the working tree.

Nothing here writes to the repository: no worktree registration, no index, no refs. The base
revision is materialised with `git archive` piped into `tarfile`, so an interrupted run can leave
at most a temporary directory behind, never state inside `.git` (a `git worktree add` would
register a worktree that needs `git worktree prune` after a crash). What `git archive` implies:
paths marked `export-ignore` in the revision's `.gitattributes` are left out, `export-subst` is
applied, and Git LFS files arrive as pointers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from accelplane.errors import InputError

# Git must not ask for credentials or open an editor; a read-only command needs neither.
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}


@dataclass(frozen=True)
class Repository:
    """The repository around a project directory: its top level and the project's path inside it."""

    top: Path
    prefix: str  # the project's path relative to `top`, "" or ending in "/"

    @classmethod
    def around(cls, project_dir: Path) -> Repository:
        if shutil.which("git") is None:
            raise InputError.single("git is not installed (accelplane diff reads revisions with git)",
                                    file=str(project_dir))
        top = _git(project_dir, "rev-parse", "--show-toplevel", what="a git repository")
        prefix = _git(project_dir, "rev-parse", "--show-prefix", what="a git repository")
        return cls(top=Path(top), prefix=prefix)

    def resolve(self, ref: str) -> str:
        """The full commit id `ref` names (a branch, tag, `HEAD~1`, `origin/main`, a sha)."""
        if ref.startswith("-"):
            raise InputError.single(f"not a git revision: {ref!r}", field="--base")
        return _git(self.top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}",
                    what=f"a commit named {ref!r} (fetch it first, e.g. `git fetch origin main`)", field="--base")

    def has_file(self, commit: str, project_path: str) -> bool:
        """Whether `project_path` (relative to the project directory) exists in `commit`."""
        result = subprocess.run(
            ["git", "cat-file", "-e", f"{commit}:{self.prefix}{project_path}"],
            cwd=self.top, env=_env(), capture_output=True, check=False,
        )
        return result.returncode == 0

    def export(self, commit: str, destination: Path) -> Path:
        """Write the project directory as it is in `commit` under `destination`; return its path there."""
        command = ["git", "archive", "--format=tar", commit]
        if self.prefix:
            command += ["--", self.prefix]
        process = subprocess.Popen(command, cwd=self.top, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert process.stdout is not None
            with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
                archive.extractall(destination, filter="tar")
            # tarfile stops at the end-of-archive blocks; git writes zeros past them up to its record size.
            # Read them too: closing the pipe first would kill git with SIGPIPE, a failure with no message.
            while process.stdout.read(1 << 16):
                pass
        finally:
            if process.stdout is not None:
                process.stdout.close()
            stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
            if process.stderr is not None:
                process.stderr.close()
            returncode = process.wait()
        if returncode != 0:
            raise InputError.single(f"git archive failed: {stderr.strip()}", file=str(self.top), field="--base")
        return destination / self.prefix if self.prefix else destination


def _env() -> dict[str, str]:
    return {**os.environ, **_GIT_ENV}


def _git(cwd: Path, *args: str, what: str, field: str | None = None) -> str:
    try:
        result = subprocess.run(["git", *args], cwd=cwd, env=_env(), capture_output=True, text=True, check=False)
    except OSError as error:
        raise InputError.single(f"cannot run git: {error.strerror or error}", file=str(cwd)) from None
    if result.returncode != 0:
        detail = result.stderr.strip().splitlines()
        raise InputError.single(f"expected {what}" + (f" ({detail[-1]})" if detail else ""), file=str(cwd),
                                field=field)
    return result.stdout.strip()
