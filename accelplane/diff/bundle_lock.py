"""The bundle-lock section of a diff: artifacts added, removed and changed between a base lock and
a head lock (`accelplane bundle diff`, and the "Artifacts" section of `accelplane diff` when the
stack's lock is in both revisions: `artifact_section`).

Artifacts are matched on kind, name, version and architecture; what is left on both sides is
paired on kind, name and architecture when exactly one is left on each (a version change: `driver
570.172.08-1 -> 580.95.05-1`); everything else is added or removed. A matched artifact whose
checksum, size or source URL differs is changed; that is the change a review must look at, since
the same version with new bytes is what an altered mirror or a re-tagged image looks like.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelplane.bundle.lockfile import Artifact, Lock, load_lock
from accelplane.diff.git import Repository
from accelplane.errors import InputError


@dataclass(frozen=True)
class ArtifactChange:
    op: str  # add | remove | change
    old: Artifact | None
    new: Artifact | None

    @property
    def artifact(self) -> Artifact:
        artifact = self.new or self.old
        assert artifact is not None
        return artifact

    def details(self) -> list[str]:
        if self.old is None or self.new is None:
            return []
        out = []
        for attribute in ("version", "checksum", "size", "url"):
            before, after = getattr(self.old, attribute), getattr(self.new, attribute)
            if before != after:
                out.append(f"{attribute} {before} -> {after}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "kind": self.artifact.kind.value,
            "name": self.artifact.name,
            "architecture": self.artifact.architecture,
            "old": self.old.to_json() if self.old else None,
            "new": self.new.to_json() if self.new else None,
        }


def diff_locks(base: Lock, head: Lock) -> list[ArtifactChange]:
    old = {a.key: a for a in base.artifacts}
    new = {a.key: a for a in head.artifacts}
    changes = []
    for key in sorted(old.keys() & new.keys()):
        if (old[key].checksum, old[key].size, old[key].url) != (new[key].checksum, new[key].size, new[key].url):
            changes.append(ArtifactChange("change", old[key], new[key]))
    left = {key: old[key] for key in old.keys() - new.keys()}
    right = {key: new[key] for key in new.keys() - old.keys()}

    def by_identity(items: dict[tuple[str, str, str, str], Artifact]) -> dict[tuple[str, str, str], list[Artifact]]:
        grouped: dict[tuple[str, str, str], list[Artifact]] = {}
        for artifact in items.values():
            grouped.setdefault((artifact.kind.value, artifact.name, artifact.architecture), []).append(artifact)
        return grouped

    removed, added = by_identity(left), by_identity(right)
    for identity in sorted(removed.keys() & added.keys()):
        if len(removed[identity]) == 1 and len(added[identity]) == 1:
            changes.append(ArtifactChange("change", removed.pop(identity)[0], added.pop(identity)[0]))
    changes += [ArtifactChange("remove", a, None) for items in removed.values() for a in items]
    changes += [ArtifactChange("add", None, a) for items in added.values() for a in items]
    order = {"add": 0, "remove": 1, "change": 2}
    return sorted(changes, key=lambda c: (order[c.op], c.artifact.key))


def base_lock_from_git(lock_path: Path, ref: str) -> Lock:
    """The lock at `lock_path` as it is in the git revision `ref`."""

    directory = lock_path.resolve().parent
    repository = Repository.around(directory)
    commit = repository.resolve(ref)
    relative = lock_path.resolve().relative_to(repository.top.resolve()).as_posix()
    result = subprocess.run(
        ["git", "show", f"{commit}:{relative}"], cwd=repository.top, capture_output=True, check=False,
        env={"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "PATH": _path()},
    )
    if result.returncode != 0:
        raise InputError.single(f"{relative} is not in revision {ref}", file=str(lock_path), field="--base")

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / f"{ref.replace('/', '_')}:{lock_path.name}"
        copy.write_bytes(result.stdout)
        return load_lock(copy)


def artifact_section(lock_path: Path, commit: str, stack: str) -> tuple[list[ArtifactChange] | None, list[str]]:
    """(changes, notes) for `accelplane diff`: the lock at `lock_path` in the working tree against
    the same file in `commit`; None when the stack has no lock on both sides (nothing to compare)."""

    if not lock_path.is_file():
        return None, []
    head = load_lock(lock_path)
    if head.stack != stack:
        return None, [f"{lock_path.name} is the lock of stack {head.stack}, not {stack}: no artifacts section"]
    try:
        base = base_lock_from_git(lock_path, commit)
    except InputError:
        return None, [f"{lock_path.name} is new in the working tree: every artifact is added "
                      f"(`accelplane bundle diff --lock {lock_path.name} --base-lock FILE` against another lock)"]
    return diff_locks(base, head), []


def _path() -> str:

    return os.environ.get("PATH", "/usr/bin:/bin")


def render(changes: list[ArtifactChange], fmt: str, *, base: str, head: str) -> str:
    counts = {op: sum(1 for c in changes if c.op == op) for op in ("add", "remove", "change")}
    if fmt == "json":
        document = {"base": base, "head": head, "changes": [c.to_json() for c in changes], "summary": counts}
        return json.dumps(document, indent=1) + "\n"
    symbols = {"add": "+", "remove": "-", "change": "~"}
    lines = []
    if fmt == "markdown":
        lines += [f"### Bundle lock: {base} → {head}", "", "| | artifact | change |", "|---|---|---|"]
        for change in changes:
            detail = "; ".join(change.details()) or change.artifact.checksum
            lines.append(f"| {symbols[change.op]} | {change.artifact.label} | {detail} |")
        lines.append("")
    else:
        for change in changes:
            detail = "; ".join(change.details())
            lines.append(f"{symbols[change.op]} {change.artifact.label}" + (f": {detail}" if detail else ""))
    lines.append(f"{counts['add']} added, {counts['remove']} removed, {counts['change']} changed")
    return "\n".join(lines) + "\n"
