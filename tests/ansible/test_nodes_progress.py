"""ProgressView's per-host status from ansible-runner events: a host the run stopped before is
"not run", whatever Ansible's stats count for it in the preflight play."""

from __future__ import annotations

import io
from typing import Any

from accelplane.nodes.progress import ProgressView

PREFLIGHT, UPGRADE = "0b7c2f64-0000-4000-8000-000000000001", "0b7c2f64-0000-4000-8000-000000000002"


def _play(view: ProgressView, uuid: str, name: str) -> None:
    view({"event": "playbook_on_play_start", "event_data": {"play": name, "play_uuid": uuid}})


def _task(view: ProgressView, uuid: str, host: str, kind: str = "runner_on_ok", **res: Any) -> None:
    view({"event": "runner_on_start", "event_data": {"host": host, "task": "t", "play_uuid": uuid}})
    view({"event": kind, "event_data": {"host": host, "task": "t", "play_uuid": uuid, "res": res}})


def _stats(view: ProgressView, ok: dict[str, int], failures: dict[str, int] | None = None) -> None:
    view({"event": "playbook_on_stats", "event_data": {"ok": ok, "failures": failures or {}}})


def test_hosts_after_a_failed_canary_are_not_run_and_the_summary_says_so():
    view = ProgressView(out=io.StringIO(), expected_plays=2, clock=lambda: 0.0)
    _play(view, PREFLIGHT, "Preflight")
    for host in ("n1", "n2", "n3"):
        _task(view, PREFLIGHT, host)
    _play(view, UPGRADE, "Upgrade")
    _task(view, UPGRADE, "n1", node_upgrade_result="upgraded", changed=True)
    # The next batch: ansible-runner appends a counter to the play's uuid.
    _play(view, UPGRADE + "_1", "Upgrade")
    _task(view, UPGRADE + "_1", "n2", ansible_facts={"node_upgrade_result": "rolled_back"})
    _task(view, UPGRADE + "_1", "n2", kind="runner_on_failed", msg="rolled back; rollout stopped")
    _stats(view, ok={"n1": 9, "n2": 12, "n3": 3}, failures={"n2": 1})
    assert {name: host.status for name, host in view.hosts.items()} == {
        "n1": "ok",
        "n2": "rolled back",
        "n3": "not run",
    }
    summary = view.summary().splitlines()
    assert summary[3].split()[:3] == ["n3", "not", "run"]
    assert summary[-1] == "not run (the run stopped before their turn): n3"


def test_a_failed_preflight_leaves_every_other_host_not_run():
    view = ProgressView(out=io.StringIO(), expected_plays=2, clock=lambda: 0.0)
    _play(view, PREFLIGHT, "Preflight")
    _task(view, PREFLIGHT, "n1", kind="runner_on_failed", msg="incompatible; no node was touched")
    _task(view, PREFLIGHT, "n2")
    _stats(view, ok={"n2": 1}, failures={"n1": 1})
    assert view.hosts["n1"].status == "failed"
    assert view.hosts["n2"].status == "not run"


def test_every_host_that_reached_the_last_play_keeps_its_status():
    view = ProgressView(out=io.StringIO(), expected_plays=2, clock=lambda: 0.0)
    for uuid in (PREFLIGHT, UPGRADE):
        _play(view, uuid, "play")
        _task(view, uuid, "n1")
        _task(view, uuid, "n2", changed=True)
    _stats(view, ok={"n1": 2, "n2": 2})
    assert view.hosts["n1"].status == "ok" and view.hosts["n2"].status == "ok"
    assert "not run" not in view.summary()


def test_without_the_playbook_s_play_count_the_last_play_that_started_decides():
    view = ProgressView(out=io.StringIO(), clock=lambda: 0.0)
    _play(view, PREFLIGHT, "Preflight")
    _task(view, PREFLIGHT, "n1")
    _task(view, PREFLIGHT, "n2")
    _play(view, UPGRADE, "Upgrade")
    _task(view, UPGRADE, "n1")
    view.finish()
    assert view.hosts["n1"].status == "ok" and view.hosts["n2"].status == "not run"
