"""Run a revision's own `accelplane preview --stack NAME --json FILE` and read the graph it writes.

Each revision is run by its own code: a child Python process of this interpreter (so the
virtual environment's packages are shared) with the revision's project directory first on
`PYTHONPATH` and as working directory, so `import accelplane` finds that revision's package. The
interface between the two is the documented `preview --json` contract (docs/design.md), which is
stable across revisions where internal modules are not.

Both revisions run at the same time (each is mostly import and single-threaded program time).
When one fails, the other is stopped at once; whatever happens, no child outlives `run_previews`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelplane.errors import EXIT_BAD_INPUT, InputError
from accelplane.input_files import read_json

# `preview` exits 1 when a profile is incompatible or a manifest invalid; the graph is written anyway.
_GRAPH_WRITTEN = (0, 1)
TIMEOUT_S = 900.0
_STDERR_LINES = 12


@dataclass(frozen=True)
class PreviewJob:
    label: str  # what the user calls this side: "base revision main (1a2b3c4)" or "working tree"
    project_dir: Path
    stack: str
    graph_file: Path
    log_file: Path
    # How messages should name `project_dir`: a temporary copy is gone when the user reads them,
    # so the base's files are named the way git does, `<rev>:<path>`.
    shown_as: str | None = None
    stack_file: str | None = None  # relative to `project_dir`, when the stack file is not where --stack looks

    def command(self) -> list[str]:
        target = ["--stack-file", self.stack_file] if self.stack_file else ["--stack", self.stack]
        return [sys.executable, "-m", "accelplane", "preview", *target, "--json", str(self.graph_file)]

    def env(self) -> dict[str, str]:
        path = os.environ.get("PYTHONPATH")
        return {
            **os.environ,
            "PYTHONPATH": str(self.project_dir) + (os.pathsep + path if path else ""),
            # Leave no __pycache__ behind in the working tree (and none to clean up in the copy).
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }


def run_previews(jobs: list[PreviewJob], timeout_s: float = TIMEOUT_S) -> list[dict[str, Any]]:
    """Run every job in parallel; return the graph documents in job order, or raise `InputError`."""
    running: list[tuple[PreviewJob, subprocess.Popen[bytes]]] = []
    try:
        for job in jobs:
            with job.log_file.open("wb") as log:
                process = subprocess.Popen(job.command(), cwd=job.project_dir, env=job.env(),
                                           stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            running.append((job, process))
        deadline = time.monotonic() + timeout_s
        pending = list(running)
        while pending:
            for job, process in list(pending):
                code = process.poll()
                if code is None:
                    continue
                pending.remove((job, process))
                # Exit 1 is also what an uncaught exception gives: then no graph was written.
                if code not in _GRAPH_WRITTEN or not job.graph_file.exists():
                    raise _failure(job, code)
            if pending and time.monotonic() > deadline:
                raise InputError.single(f"accelplane preview did not finish within {timeout_s:.0f} s",
                                        file=str(pending[0][0].project_dir), field=pending[0][0].label)
            if pending:
                time.sleep(0.05)
        return [_read_graph(job) for job in jobs]
    finally:
        for _, process in running:
            if process.poll() is None:
                process.kill()
            process.wait()


def _failure(job: PreviewJob, code: int) -> InputError:
    try:
        lines = job.log_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    # The child's own messages (file:line: field: ...) say what is wrong: keep them, not the plan before them.
    first = next((n for n, line in enumerate(lines) if line.startswith(("error:", "Traceback"))), 0)
    tail = "\n".join(lines[first:][-_STDERR_LINES:])
    if job.shown_as is not None:
        tail = tail.replace(f"{job.project_dir}{os.sep}", job.shown_as).replace(str(job.project_dir), job.shown_as)
    kind = "bad input" if code == EXIT_BAD_INPUT else f"exit code {code}"
    return InputError.single(f"`accelplane preview --stack {job.stack}` failed on the {job.label} ({kind})"
                             + (f":\n{tail}" if tail else ""), file=job.shown_as or str(job.project_dir))


def _read_graph(job: PreviewJob) -> dict[str, Any]:
    try:
        data = read_json(job.graph_file)
    except InputError as error:
        raise InputError.single(f"the {job.label} wrote no readable preview graph ({error.problems[0].message})",
                                file=str(job.graph_file)) from None
    if not isinstance(data, dict) or not isinstance(data.get("resources"), list):
        raise InputError.single(f"the {job.label}'s preview graph has no `resources` list", file=str(job.graph_file))
    return data
