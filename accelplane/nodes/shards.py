"""A fleet run split into shards, each its own ansible-runner process (its own ansible-playbook), with
one canary gate before any shard proceeds and one merged report: how `accelplane nodes --shards N`
goes past what one Ansible process drives.

Each shard is its own `accelplane nodes` process (one ansible-runner, one ansible-playbook), started with
the shard's hosts as `--limit`; it hands back its hosts' progress as JSON (`--progress-json`), and its
output is shown line by line under the shard's name. Processes, not threads: ansible-runner forks
ansible-playbook through a pty, which is not safe from a process running other threads.

Why processes: a controller's cost grows with the task runs it forks (README, "Fleet runs"); one
ansible-playbook is one process whose workers one machine's cores feed. Several ansible-runner
processes spread the fleet over the cores of one machine, or — the same split — over several
controllers (AWX / Ansible Automation Platform job slicing, docs/awx.md). On two cores the shards only
share the same CPUs: this is tested for correctness here, not for speed.

The phases, each waiting for the one before:
- `upgrade`: (1) every shard checks its hosts can take the new profile (upgrade.yml with
  `node_upgrade_check_only`: the preflight and the fleet check, no host changed); one refusal stops
  the run before any host changes, as the unsharded run's fleet check does. (2) The canary — the first
  `rollout.canary` hosts in Ansible's order — alone; a failed (rolled back) canary stops the run: no
  shard starts. (3) The other hosts, split into shards that run at once, each with the rollout's
  batches inside it; a failure stops its own shard's later batches.
- `apply` and `validate`: the hosts split into shards that run at once (no canary: site.yml has none).

Hosts are split into contiguous runs of the inventory order (a shard then holds whole host groups
where it can, so a group's hosts share a process). The merged report is one summary with every
host's status, counts summed over the phases it ran in, and the phase and shard that last ran it.
"""

from __future__ import annotations

import io
import json
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from accelplane.nodes.progress import ProgressView

# upgrade.yml's switch for a shard's first phase: the checks only, no host changed.
CHECK_ONLY = "node_upgrade_check_only"


def split(hosts: Sequence[str], shards: int) -> list[list[str]]:
    """`hosts` in `shards` contiguous runs as even as can be (the first ones one longer); no empty shard."""
    count = max(1, min(shards, len(hosts)))
    size, extra = divmod(len(hosts), count)
    out, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        out.append(list(hosts[start:end]))
        start = end
    return [shard for shard in out if shard]


@dataclass(frozen=True)
class ShardRun:
    """One ansible-runner process of a sharded run."""

    phase: str  # check, canary or shards
    label: str  # e.g. "shard 2/3", "canary"
    hosts: tuple[str, ...]
    check_only: bool = False


def plan(playbook: str, hosts: Sequence[str], shards: int, canary: int) -> list[list[ShardRun]]:
    """The phases of a sharded run, each a list of runs that go at once (module docstring)."""
    if playbook != "upgrade":
        parts = split(hosts, shards)
        return [[ShardRun("shards", f"shard {i}/{len(parts)}", tuple(part)) for i, part in enumerate(parts, 1)]]
    first, rest = list(hosts[:canary]), list(hosts[canary:])
    checks = split(hosts, shards)
    phases = [[ShardRun("check", f"check {i}/{len(checks)}", tuple(part), check_only=True)
               for i, part in enumerate(checks, 1)],
              [ShardRun("canary", "canary", tuple(first))]]
    if rest:
        parts = split(rest, shards)
        phases.append([ShardRun("shards", f"shard {i}/{len(parts)}", tuple(part)) for i, part in enumerate(parts, 1)])
    return phases


@dataclass
class ShardOutcome:
    """What one run of a sharded run left: its exit code, its hosts' progress, its reports and the run
    directory it kept (a failed run's Ansible output)."""

    run: ShardRun
    rc: int
    view: ProgressView
    reports: dict[str, str] = field(default_factory=dict)
    kept: str | None = None
    seconds: float = 0.0


@dataclass
class ShardedResult:
    rc: int
    outcomes: list[ShardOutcome] = field(default_factory=list)
    stopped_after: str | None = None  # the phase that failed, when the run stopped there
    seconds: float = 0.0

    def view(self, check: bool = False) -> ProgressView:
        """One view of every host: counts summed over its runs, the outcome and status of its last."""
        return merged_view([o.view for o in self.outcomes], check=check)

    def reports(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for outcome in self.outcomes:
            found.update(outcome.reports)
        return found

    def shard_of(self) -> dict[str, str]:
        """Host -> the run that last had it (the canary, a shard, or the check that stopped the run)."""
        last: dict[str, str] = {}
        for outcome in self.outcomes:
            for host in outcome.run.hosts:
                last[host] = outcome.run.label
        return last

    def lines(self) -> list[str]:
        """Which run did what, with its time (the sharded run's overhead is the gap to one run)."""
        out = []
        for outcome in self.outcomes:
            state = "ok" if outcome.rc == 0 else f"failed (rc {outcome.rc})"
            hosts = ", ".join(outcome.run.hosts)
            out.append(f"  {outcome.run.label:<12} {state:<14} {outcome.seconds:7.1f} s  {hosts}")
        if self.stopped_after:
            out.append(f"  stopped after the {self.stopped_after} phase: no later phase started")
        return out


def merged_view(views: Sequence[ProgressView], check: bool = False) -> ProgressView:
    merged = ProgressView(check=check)
    for view in views:
        for name, host in view.hosts.items():
            into = merged.host(name)
            for counter in ("ok", "changed", "failed", "skipped", "unreachable", "rescued"):
                setattr(into, counter, getattr(into, counter) + getattr(host, counter))
            into.outcomes.update(host.outcomes)
            into.not_run = host.not_run
            if host.message:
                into.message, into.task = host.message, host.task
    return merged  # no play of its own: its finish() keeps each host's `not_run` as merged


class PrefixedOut:
    """A text stream that writes whole lines to `out`, each after `prefix`: shards print at once."""

    _lock = threading.Lock()

    def __init__(self, out: TextIO, prefix: str) -> None:
        self.out, self.prefix, self._pending = out, prefix, ""

    def write(self, text: str) -> int:
        self._pending += text
        while "\n" in self._pending:
            line, self._pending = self._pending.split("\n", 1)
            with self._lock:
                self.out.write(f"{self.prefix}{line}\n")
        return len(text)

    def flush(self) -> None:
        with self._lock:
            self.out.flush()


# Runs one shard to its end: its exit code, progress, reports and kept directory (seconds are added here).
Runner = Callable[[ShardRun], ShardOutcome]


def run_sharded(phases: list[list[ShardRun]], run: Runner, *,
                clock: Callable[[], float] = time.monotonic) -> ShardedResult:
    """Run the phases in order, the runs of a phase at once, and stop after a phase in which a run
    failed. `run` drives one shard (`accelplane nodes` in a child process: `shard_process`)."""
    started = clock()
    result = ShardedResult(rc=0)

    def timed(shard: ShardRun) -> ShardOutcome:
        begin = clock()
        outcome = run(shard)
        outcome.seconds = clock() - begin
        return outcome

    for runs in phases:
        with ThreadPoolExecutor(max_workers=len(runs)) as pool:
            outcomes = list(pool.map(timed, runs))
        result.outcomes.extend(outcomes)
        failed = [o for o in outcomes if o.rc != 0]
        if failed:
            result.rc = max(o.rc for o in failed)
            if runs is not phases[-1]:
                result.stopped_after = runs[0].phase
            break
    result.seconds = clock() - started
    return result


# --- one shard as a child `accelplane nodes` process ---------------------------------------------------

def progress_document(view: ProgressView, reports: dict[str, str], kept: Path | None) -> dict[str, Any]:
    """What a shard's process hands its parent (`--progress-json`): each host's progress as plain data."""
    view.finish()
    hosts = {name: {"ok": h.ok, "changed": h.changed, "failed": h.failed, "skipped": h.skipped,
                    "unreachable": h.unreachable, "rescued": h.rescued, "task": h.task, "message": h.message,
                    "outcomes": dict(h.outcomes), "not_run": h.not_run} for name, h in view.hosts.items()}
    return {"hosts": hosts, "reports": reports, "kept": str(kept) if kept else None}


def view_of(document: dict[str, Any], check: bool) -> ProgressView:
    view = ProgressView(out=io.StringIO(), check=check)
    for name, state in (document.get("hosts") or {}).items():
        host = view.host(name)
        for key in ("ok", "changed", "failed", "skipped", "unreachable", "rescued"):
            setattr(host, key, int(state.get(key) or 0))
        host.task, host.message = str(state.get("task") or ""), str(state.get("message") or "")
        host.outcomes = {str(k): str(v) for k, v in (state.get("outcomes") or {}).items()}
        host.not_run = bool(state.get("not_run"))
    return view


def shard_process(command: Sequence[str], out: TextIO, check: bool, work: Path) -> Runner:
    """A runner that starts `command` (the `accelplane nodes …` of this run, without --shards) once per
    shard with the shard's hosts, streams its lines to `out` under the shard's name, and reads back the
    progress the child wrote. A child that wrote none (it crashed, or refused its input) is a failed
    run whose hosts did not run."""

    def run(shard: ShardRun) -> ShardOutcome:
        progress = work / f"{shard.label.replace(' ', '-').replace('/', '-of-')}.json"
        argv = [*command, "--limit", ",".join(shard.hosts), "--progress-json", str(progress)]
        if shard.check_only:
            argv.append("--fleet-check-only")
        prefixed = PrefixedOut(out, f"[{shard.label}] ")
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as child:
            assert child.stdout is not None
            for line in child.stdout:
                prefixed.write(line)
        prefixed.flush()
        if not progress.is_file():
            view = ProgressView(out=io.StringIO(), check=check)
            for host in shard.hosts:
                view.host(host).not_run = True
            return ShardOutcome(shard, child.returncode or 1, view)
        document = json.loads(progress.read_text())
        return ShardOutcome(shard, child.returncode, view_of(document, check), dict(document.get("reports") or {}),
                            document.get("kept"))

    return run
