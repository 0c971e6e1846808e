"""`accelplane diff --stack <migration> --base REF`: what a change does to a migration, for its reviewers.

As for a platform stack (`accelplane.diff`), both revisions run their own `accelplane preview --json`
side by side (the base exported with `git archive` into a temporary directory) and the graphs are matched
by URN: the weighted records and health checks created, updated (weights before → after) and deleted.
Then, from the two revisions' stack files (the migration and both ends, each read from its revision):
- the declared weights of both ends before → after, and whether the move is one step: forward to the
  next declared step, or back to 0 (a rollback or an abort). A change that skips steps, or moves back to
  anything but 0, fails the diff (exit 1): the gates judge one step at a time, and `migrate advance`
  writes exactly one;
- the cost change: both ends' service pools at the declared weight, a month, before → after (priced with
  today's code and tables, `migration.cost`).
A migration that does not exist at the base is new: every record is a create, and its weight is judged
from 0.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelplane.config.loader import StackConfig
from accelplane.config.project import Project
from accelplane.cost.estimate import Estimate
from accelplane.diff.git import Repository
from accelplane.diff.plan_diff import ResourceDiff
from accelplane.diff.preview_runner import PreviewJob, run_previews
from accelplane.diff.resources import diff_graphs
from accelplane.diff.stack_diff import TEMP_PREFIX
from accelplane.errors import InputError
from accelplane.migration.cost import migration_cost
from accelplane.migration.loader import load_migration
from accelplane.migration.stack import MigrationStack


@dataclass
class MigrationDiff:
    stack: str
    base_ref: str
    base_commit: str
    base_exists: bool
    resources: list[ResourceDiff]
    weights_before: dict[str, int]  # by end stack name
    weights_after: dict[str, int]
    overlap_before: float | None  # both ends' service pools a month at the declared weight
    overlap_after: float | None
    step_problem: str | None  # why the weight change is not one step; None when it is (or unchanged)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.step_problem is None


def step_problem(before: int, after: int, steps: list[int]) -> str | None:
    """Why `before` → `after` (the target's weight) is not one move a reviewer can accept; None when it is."""
    if after in (before, 0):
        return None
    if after < before:
        return (f"the target's weight goes back from {before}% to {after}%: a migration goes back only to 0 "
                "(`migrate advance` rolls back there, `migrate abort` too)")
    following = next((step for step in steps if step > before), None)
    if after != following:
        skipped = [step for step in steps if before < step < after]
        return (f"the target's weight moves from {before}% to {after}%, skipping {', '.join(f'{s}%' for s in skipped)}"
                f": one step at a time, each judged by the gates (`accelplane migrate advance`)")
    return None


def _weights(stack: MigrationStack) -> dict[str, int]:
    weight = stack.migration.weight
    return {stack.source.stack: 100 - weight, stack.target.stack: weight}


def _overlap(stack: MigrationStack, estimate_of: Callable[[StackConfig], Estimate]) -> float | None:
    cost = migration_cost(stack, estimate_of)
    return next(step.overlap_monthly for step in cost.steps if step.weight == stack.migration.weight) \
        if stack.migration.weight in [0, *stack.migration.steps] else None


def diff_migration(head: MigrationStack, base_ref: str, *, project: Project,
                   estimate_of: Callable[[StackConfig], Estimate]) -> MigrationDiff:
    project_dir = project.root.resolve()
    try:
        relative = head.path.resolve().relative_to(project_dir).as_posix()
    except ValueError:
        raise InputError.single(f"the stack file is outside the project {project_dir}: diff compares a file of the "
                                "project's git repository", file=str(head.path)) from None
    repository = Repository.around(project_dir)
    commit = repository.resolve(base_ref)
    base_exists = repository.has_file(commit, relative)
    label = f"base revision {base_ref} ({commit[:7]})"
    standard = head.path.resolve() == project.stack_file(head.stack).resolve()
    target = None if standard else relative
    workspace = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    try:
        jobs = [PreviewJob("working tree", project_dir, head.stack, workspace / "head.json", workspace / "head.log",
                           stack_file=target)]
        base: MigrationStack | None = None
        base_dir = repository.export(commit, workspace / "base") if base_exists else None
        if base_dir is not None:
            jobs.append(PreviewJob(label, base_dir, head.stack, workspace / "base.json", workspace / "base.log",
                                   shown_as=f"{base_ref}:{repository.prefix}", stack_file=target))
        documents = run_previews(jobs)
        if base_dir is not None:
            base = load_migration(base_dir / relative, stack=head.stack)
        before_overlap = _overlap(base, estimate_of) if base is not None else None
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    base_document: dict[str, Any] = documents[1] if base_exists else {"stack": head.stack, "resources": []}
    before = base.migration.weight if base is not None else 0
    notes = [] if base_exists else [f"migration {head.stack} does not exist at {base_ref}: every record is new"]
    return MigrationDiff(
        stack=head.stack, base_ref=base_ref, base_commit=commit, base_exists=base_exists,
        resources=diff_graphs(base_document, documents[0]),
        weights_before=_weights(base) if base is not None else {head.source.stack: 100, head.target.stack: 0},
        weights_after=_weights(head), overlap_before=before_overlap, overlap_after=_overlap(head, estimate_of),
        step_problem=step_problem(before, head.migration.weight, head.migration.steps), notes=notes)
