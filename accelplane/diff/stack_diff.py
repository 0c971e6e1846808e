"""`diff_stack()`: one stack at a base revision against the working tree.

Steps: validate the working tree's declaration (exit 2 early on a bad one); resolve the base
revision; export the base's project directory into a temporary directory with `git archive`; run
both revisions' own `accelplane preview --json` in parallel; remove the temporary directory
(whatever happened); then compare graphs, findings, software sets and inference services' rollouts in this process.

A stack that does not exist at the base revision is new: every resource is a create and its
findings are all introduced.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from accelplane.config.loader import PLATFORM_KEY, StackConfig
from accelplane.config.project import Project
from accelplane.config.yaml_source import read_yaml
from accelplane.diff.bundle_lock import artifact_section
from accelplane.diff.cost import cost_diff, desired_sizes
from accelplane.diff.findings import compare, judge_revision, raw_waivers
from accelplane.diff.git import Repository
from accelplane.diff.plan_diff import PlanDiff
from accelplane.diff.preview_runner import PreviewJob, run_previews
from accelplane.diff.purchase_findings import purchase_findings
from accelplane.diff.resources import diff_graphs
from accelplane.diff.rollout import merge, rollout_changes, step_findings
from accelplane.diff.software import software_changes
from accelplane.errors import InputError
from accelplane.rules.judgement import Policy
from accelplane.rules.sources import from_plan, is_bookkeeping

TEMP_PREFIX = "accelplane-diff-"
DEFAULT_LOCK = "bundle.lock.json"  # `accelplane bundle lock`'s default output, run from the project root


def diff_stack(
    head_stack: StackConfig, base_ref: str, *, project: Project, as_of: date | None = None,
    levels: Mapping[str, str] | None = None, lock: Path | None = None,
) -> PlanDiff:
    """`head_stack` is the working tree's validated stack file, inside `project` (its git repository).
    `lock`: the stack's bundle lock (default: `bundle.lock.json` at the project root when it is this
    stack's); compared with the same file at the base revision when both have it."""
    stack = head_stack.stack
    project_dir = project.root.resolve()
    head_file = head_stack.path.resolve()
    try:
        relative_stack_file = head_file.relative_to(project_dir).as_posix()
    except ValueError:
        raise InputError.single(f"the stack file is outside the project {project_dir}: diff compares a file "
                                "of the project's git repository", file=str(head_stack.path)) from None
    head_platform_data = head_stack.config[PLATFORM_KEY]
    levels = levels or {}
    standard = head_file == project.stack_file(stack).resolve()

    repository = Repository.around(project_dir)
    commit = repository.resolve(base_ref)
    base_exists = repository.has_file(commit, relative_stack_file)
    base_label = f"base revision {base_ref} ({commit[:7]})"

    # A stack file where `--stack NAME` finds it is previewed by name (every revision's CLI knows that);
    # one elsewhere by path, which needs a revision that knows `--stack-file`.
    target = None if standard else relative_stack_file
    head_document, base_document, base_platform_data = _plans(
        project_dir, repository, stack, target, relative_stack_file,
        base=(commit, base_label, f"{base_ref}:{repository.prefix}") if base_exists else None)

    # Each side with its own waivers, under the same enforcement levels (`--policy-config`).
    base = judge_revision(base_document, base_platform_data, stack=stack,
                          environment=_str(base_platform_data.get("environment")), origin=base_label,
                          policy=Policy(levels=levels, waivers=tuple(raw_waivers(base_platform_data)), as_of=as_of))
    head = judge_revision(head_document, head_platform_data, stack=stack,
                          environment=head_stack.platform.environment.value, origin="working tree",
                          policy=Policy(levels=levels, waivers=tuple(head_stack.platform.waivers), as_of=as_of))
    introduced, resolved = compare(base.findings, head.findings)
    notes = [] if base_exists else [f"stack {stack} does not exist at {base_ref}: everything is new"]
    # Both sides' inference services from their graphs (the components' props), judged alike.
    rollout, rollout_notes = rollout_changes(from_plan(dict(base_document), base_label),
                                             from_plan(dict(head_document), "working tree"), as_of)
    steps = step_findings(rollout)
    notes += rollout_notes
    lock_path = lock if lock is not None else project_dir / DEFAULT_LOCK
    artifacts, lock_notes = artifact_section(lock_path, commit, stack)
    notes += lock_notes
    platform = head_stack.platform
    cost = cost_diff(base_document, head_document, cloud=platform.cloud, region=platform.region,
                     base_desired=desired_sizes(base_platform_data), head_desired=desired_sizes(head_platform_data))
    return PlanDiff(
        stack=stack,
        base_ref=base_ref,
        base_commit=commit,
        base_resources=_count(base_document),
        head_resources=_count(head_document),
        resources=diff_graphs(base_document, head_document),
        introduced=merge([*steps, *purchase_findings(base_document, head_document)], introduced),
        resolved=resolved,
        software=software_changes(base_platform_data, head_platform_data, head_stack.platform, as_of),
        notes=notes,
        base_exists=base_exists,
        rollout=rollout,
        artifacts=artifacts,
        lock_file=_shown(lock_path, project_dir) if artifacts is not None else None,
        cost=cost,
    )


def _plans(
    project_dir: Path, repository: Repository, stack: str, target: str | None, relative_stack_file: str,
    base: tuple[str, str, str] | None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(head plan, base plan, base declaration as plain data): both revisions previewed side by side by
    their own CLI; `base` is (commit, label, how its files are shown), None when the stack is new."""
    workspace = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    try:
        jobs = [PreviewJob("working tree", project_dir, stack, workspace / "head.json", workspace / "head.log",
                           stack_file=target)]
        base_platform_data: dict[str, Any] = {}
        if base is not None:
            commit, label, shown_as = base
            base_dir = repository.export(commit, workspace / "base")
            base_platform_data = _platform_data(base_dir / relative_stack_file)
            jobs.append(PreviewJob(label, base_dir, stack, workspace / "base.json", workspace / "base.log",
                                   shown_as=shown_as, stack_file=target))
        documents = run_previews(jobs)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    base_document = documents[1] if base is not None else {"stack": stack, "resources": []}
    return documents[0], base_document, base_platform_data


def _shown(path: Path, project_dir: Path) -> str:
    try:
        return path.resolve().relative_to(project_dir).as_posix()
    except ValueError:
        return str(path)


def _platform_data(path: Path) -> dict[str, Any]:
    """`accelplane:platform` of a stack file as plain data ({} when the file has none)."""
    data = read_yaml(path).data
    config = data.get("config") if isinstance(data, dict) else None
    platform = config.get(PLATFORM_KEY) if isinstance(config, dict) else None
    return platform if isinstance(platform, dict) else {}


def _count(document: dict[str, Any]) -> int:
    resources = document.get("resources") or []
    return sum(1 for r in resources if isinstance(r, dict) and not is_bookkeeping(str(r.get("type"))))


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
