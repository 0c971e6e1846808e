"""What `accelplane nodes` shows while Ansible runs: one line per host and task result that matters
(changed, failed, unreachable; ok results are counted), play headers, and a summary per host.

A host the run never reached is "not run", not "ok": every host takes part in the first play (the
preflight, which touches no node), so Ansible's own stats count it as ok even when the run stopped
before the host's turn: a canary that failed and was rolled back ends the upgrade play before the
next batch (`max_fail_percentage: 0`), a failed preflight ends the run before any play that does
the work. The view knows the playbook's number of plays (`expected_plays`, set by the runner) and
records the plays each host had a task in; a host without a task in the last of them, and without a
failure of its own, was not run.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

# Facts the roles set that the summary shows (roles/node_reboot, roles/node_upgrade, and
# roles/node_software in check mode, where node_reboot finds no reboot request: nothing was written).
_RESULT_FACTS = {
    "node_reboot_result": "reboot",
    "node_upgrade_result": "upgrade",
    "node_software_check_reboot": "check_reboot",
}


@dataclass
class HostProgress:
    host: str
    ok: int = 0
    changed: int = 0
    failed: int = 0
    skipped: int = 0
    unreachable: int = 0
    rescued: int = 0
    task: str = ""
    message: str = ""
    outcomes: dict[str, str] = field(default_factory=dict)
    # The plays (by position in the playbook, 1-based) in which the host had a task.
    plays: set[int] = field(default_factory=set)
    # Set by the view: the run ended before the host had a task in the playbook's last play.
    not_run: bool = False
    # A check-mode run: nothing changed, what is counted would have.
    check: bool = False

    @property
    def status(self) -> str:
        if self.unreachable:
            return "unreachable"
        # Failed while upgrade.yml's fleet preflight checked it: refused, nothing written, nothing rolled back.
        if self.failed and self.outcomes.get("upgrade") == "checking":
            return "refused"
        if self.outcomes.get("upgrade") == "rolled_back":
            return "rolled back"
        if self.failed:
            return "failed"
        if self.not_run:
            return "not run"
        if self.changed:
            return "would change" if self.check else "changed"
        return "ok"

    @property
    def reboot(self) -> str:
        """The reboot column: what node_reboot did, or in check mode what it would do."""
        if self.check and self.outcomes.get("check_reboot", "not_needed") != "not_needed":
            return self.outcomes["check_reboot"].replace("_", " ")
        return self.outcomes.get("reboot", "-").replace("_", " ")


class ProgressView:
    """An ansible-runner event handler that prints progress and keeps per-host counts."""

    def __init__(
        self,
        out: TextIO | None = None,
        check: bool = False,
        clock: Callable[[], float] = time.monotonic,
        expected_plays: int | None = None,
    ):
        self.out = out or sys.stdout
        self.check = check
        self.hosts: dict[str, HostProgress] = {}
        # How many plays the playbook has (imports included); None: judge by the last play that started.
        self.expected_plays = expected_plays
        self._clock = clock
        self._start = clock()
        self._plays: list[str] = []  # plays that started, in order, by ansible-runner's play uuid

    def host(self, name: str) -> HostProgress:
        return self.hosts.setdefault(name, HostProgress(name, check=self.check))

    def _print(self, text: str) -> None:
        elapsed = self._clock() - self._start
        print(f"[{int(elapsed) // 60:02d}:{int(elapsed) % 60:02d}] {text}", file=self.out, flush=True)

    def __call__(self, event: dict[str, Any]) -> bool:
        kind = event.get("event", "")
        data = event.get("event_data", {}) or {}
        if kind == "playbook_on_play_start":
            self._play_index(data)
            self._print(f"== {data.get('play', '')}")
        elif kind.startswith("runner_on_") and "host" in data:
            play = self._play_index(data)
            if play:
                self.host(data["host"]).plays.add(play)
            if not kind.startswith("runner_on_start"):
                self._on_result(kind, data)
        elif kind == "playbook_on_stats":
            self._on_stats(data)
            self.finish()
        return True  # keep the event in the artifacts

    def _play_index(self, data: dict[str, Any]) -> int:
        """The play's position in the playbook (1-based), 0 when the event names no play.

        ansible-runner gives every batch of a `serial` play a new uuid, the first one with `_<n>`
        appended (`<uuid>_1`, then `<uuid>_1_1`): the part before the first `_` is the play's."""
        uuid = str(data.get("play_uuid") or "").split("_", 1)[0]
        if not uuid:
            return 0
        if uuid not in self._plays:
            self._plays.append(uuid)
        return self._plays.index(uuid) + 1

    def finish(self) -> None:
        """Mark the hosts that had no task in the playbook's last play (see the module docstring).

        Called on Ansible's closing stats and by the runner once Ansible has ended (a run that
        crashed sends no stats); once per run, not per event, so a fleet's events stay cheap."""
        if not self._plays:
            return  # no play started (or events without plays): nothing to judge by
        last = self.expected_plays or len(self._plays)
        for host in self.hosts.values():
            host.not_run = last not in host.plays

    def _on_result(self, kind: str, data: dict[str, Any]) -> None:
        host = self.host(data["host"])
        task = data.get("task", "")
        role = data.get("role")
        label = f"{role} : {task}" if role else task
        host.task = label
        result = data.get("res", {}) or {}
        for fact, key in _RESULT_FACTS.items():
            value = (result.get("ansible_facts") or {}).get(fact)
            if value:
                host.outcomes[key] = str(value).strip()
        if kind == "runner_on_failed" and not data.get("ignore_errors"):
            host.message = str(result.get("msg") or result.get("stderr") or "failed").strip()
            self._print(f"{host.host:<16} FAILED     {label}: {host.message}")
        elif kind == "runner_on_unreachable":
            host.message = str(result.get("msg") or "unreachable").strip()
            self._print(f"{host.host:<16} UNREACHABLE {host.message}")
        elif kind == "runner_on_ok" and result.get("changed"):
            # pinned_packages names the package=version specs it installed, or would install.
            installed = result.get("installed")
            detail = f": {', '.join(map(str, installed))}" if isinstance(installed, list) and installed else ""
            self._print(f"{host.host:<16} {'would change' if self.check else 'changed':<10} {label}{detail}")

    def _on_stats(self, data: dict[str, Any]) -> None:
        for key, attr in (
            ("ok", "ok"),
            ("changed", "changed"),
            ("failures", "failed"),
            ("skipped", "skipped"),
            ("dark", "unreachable"),
            ("rescued", "rescued"),
        ):
            for name, count in (data.get(key) or {}).items():
                setattr(self.host(name), attr, getattr(self.host(name), attr) + int(count))

    def summary(self, reports: dict[str, str] | None = None) -> str:
        self.finish()
        reports = reports or {}
        rows = [("host", "status", "ok", "changed" if not self.check else "would change", "failed", "reboot", "report")]
        for name in sorted(self.hosts):
            host = self.hosts[name]
            rows.append(
                (
                    name,
                    host.status,
                    str(host.ok),
                    str(host.changed),
                    str(host.failed + host.unreachable),
                    host.reboot,
                    reports.get(name, "-"),
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
        for name in sorted(self.hosts):
            host = self.hosts[name]
            if host.status in ("failed", "unreachable", "rolled back", "refused") and host.message:
                lines.append(f"{name}: {host.message}")
        not_run = [name for name in sorted(self.hosts) if self.hosts[name].status == "not run"]
        if not_run:
            lines.append(f"not run (the run stopped before their turn): {', '.join(not_run)}")
        return "\n".join(lines)
