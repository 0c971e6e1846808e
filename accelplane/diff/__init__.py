"""`accelplane diff`: what a change does to a stack, offline, for reviewers.

The base revision and the working tree each run the offline engine; the two graphs are matched
by URN (creates, updates with the changed input paths, deletes, grouped by component); today's
rules judge both graphs (findings introduced and resolved); the two declarations give the
software-profile version changes per node pool with the matrix verdict of each new set; the two
graphs' inference-service components give the rollout section (weights per backend, each backend's
matrix verdict on its pool) and AP-RO-004, a change of weights that is not one rollout step, which
fails the diff like an introduced mandatory finding. Only git and the project are needed: no cloud
credentials, no Pulumi CLI.

Decision — **the base graph is computed by the base revision's own code**, not by today's code
with the base's stack file. A pull request changes the program as often as the declaration (a
new security-group rule in `accelplane/clouds/aws/components/security_groups.py`, a label on node groups); running
today's code on both stack files would show none of those changes, and "run the offline engine
on the base revision" would not hold. So the base's project directory is exported with `git
archive` into a temporary directory and its own `accelplane preview --json` runs there, in a
child process of this interpreter with that directory first on `PYTHONPATH` (the virtual
environment's packages are shared). The two sides meet only through the documented `preview
--json` graph contract (docs/design.md), which internal refactors do not change. The working tree
runs the same way, in parallel, so both sides are produced alike. Consequences:
- a base whose code needs a package the current environment lacks (or pins differently) fails,
  or may behave differently, here; the message names the base revision;
- the mock engine's ids and ARNs come from each revision's mocks: a change to the mocks shows
  up as changed references;
- findings use one rule set (today's) on both sides; matrix verdicts use today's facts.

Nothing is written into the working tree or the repository: `git archive` needs no worktree
registration, the children write no bytecode, and the temporary directory is removed when the
run ends, also when it fails or is interrupted (`stack_diff.diff_stack`).

Modules: `git` (read-only repository access), `preview_runner` (the two engine runs), `resources`
(URN matching and input paths), `findings`, `software`, `rollout`, `model` (the result), and one formatter
per output (`table`, `json_format`, `markdown`).
"""

from __future__ import annotations

from collections.abc import Callable

from accelplane.diff.json_format import render_json
from accelplane.diff.markdown import render_markdown
from accelplane.diff.plan_diff import PlanDiff
from accelplane.diff.stack_diff import diff_stack
from accelplane.diff.table import render_table

FORMATS: dict[str, Callable[[PlanDiff], str]] = {
    "table": render_table,
    "json": render_json,
    "markdown": render_markdown,
}


def render(diff: PlanDiff, fmt: str) -> str:
    return FORMATS[fmt](diff)


__all__ = ["FORMATS", "PlanDiff", "diff_stack", "render"]
