"""A sharded fleet run's plan, gates and merged report (accelplane/nodes/shards.py), without Ansible: the
shard runner is a stand-in that feeds each run's view the ansible-runner events a real run sends (play
starts, task results, closing stats) and answers its rc. What a real run does with the same phases, each
shard an `accelplane nodes` process, is tested on lab nodes (test_nodes_shards.py)."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

from accelplane.nodes.progress import ProgressView
from accelplane.nodes.shards import (
    PrefixedOut,
    ShardOutcome,
    ShardRun,
    merged_view,
    plan,
    progress_document,
    run_sharded,
    shard_process,
    split,
    view_of,
)

HOSTS = ["n1", "n2", "n3", "n4", "n5"]


def test_hosts_split_into_contiguous_even_shards_in_their_order() -> None:
    assert split(HOSTS, 2) == [["n1", "n2", "n3"], ["n4", "n5"]]
    assert split(HOSTS, 3) == [["n1", "n2"], ["n3", "n4"], ["n5"]]
    assert split(["n1", "n2"], 4) == [["n1"], ["n2"]]  # never an empty shard


def test_an_upgrade_checks_every_host_then_runs_the_canary_alone_then_the_shards() -> None:
    phases = plan("upgrade", HOSTS, 2, canary=1)
    assert [[(r.phase, r.label, r.hosts, r.check_only) for r in runs] for runs in phases] == [
        [("check", "check 1/2", ("n1", "n2", "n3"), True), ("check", "check 2/2", ("n4", "n5"), True)],
        [("canary", "canary", ("n1",), False)],
        [("shards", "shard 1/2", ("n2", "n3"), False), ("shards", "shard 2/2", ("n4", "n5"), False)],
    ]
    # apply and validate have no canary: one phase of shards.
    assert [[r.hosts for r in runs] for runs in plan("validate", HOSTS, 2, canary=1)] == [
        [("n1", "n2", "n3"), ("n4", "n5")]]


class Fleet:
    """Stand-in for run_playbook: each call replays a run of upgrade.yml's two plays (the fleet check,
    then the upgrade) on its --limit hosts; a host in `fails` fails its upgrade and is rolled back."""

    def __init__(self, fails: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.fails = fails
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()

    def __call__(self, shard: ShardRun) -> ShardOutcome:
        hosts = list(shard.hosts)
        extravars = {"node_upgrade_check_only": True} if shard.check_only else {}
        with self.lock:
            self.calls.append((",".join(hosts), extravars))
        view = ProgressView(out=io.StringIO(), expected_plays=2)
        _event(view, "playbook_on_play_start", play="Check", play_uuid="c")
        for host in hosts:
            _event(view, "runner_on_ok", host=host, play_uuid="c", res={})
        failed, changed = {}, {}
        if not (extravars or {}).get("node_upgrade_check_only"):
            _event(view, "playbook_on_play_start", play="Upgrade", play_uuid="u")
            for host in hosts:
                if host in self.fails:
                    _event(view, "runner_on_ok", host=host, play_uuid="u",
                           res={"ansible_facts": {"node_upgrade_result": "rolled_back"}})
                    _event(view, "runner_on_failed", host=host, play_uuid="u", res={"msg": "rolled back"})
                    failed[host] = 1
                    break  # max_fail_percentage 0: the rest of this run's batches do not start
                _event(view, "runner_on_ok", host=host, play_uuid="u",
                       res={"changed": True, "ansible_facts": {"node_upgrade_result": "upgraded"}})
                changed[host] = 1
        _event(view, "playbook_on_stats", ok=dict.fromkeys(hosts, 1), changed=changed, failures=failed)
        # What the shard's process hands back, read as the parent reads it.
        document = json.loads(json.dumps(progress_document(view, {}, None)))
        return ShardOutcome(shard, 1 if failed else 0, view_of(document, check=False))


def _event(view: ProgressView, kind: str, **data: Any) -> None:
    view({"event": kind, "event_data": data})


def _sharded(fleet: Fleet) -> Any:
    ticks = iter(range(1000))
    return run_sharded(plan("upgrade", HOSTS, 2, canary=1), fleet, clock=lambda: float(next(ticks)))


def test_a_failed_canary_stops_the_run_before_any_shard_starts() -> None:
    fleet = Fleet(fails={"n1"})
    result = _sharded(fleet)
    assert result.rc == 1 and result.stopped_after == "canary"
    # The checks (every host, nothing changed), then the canary alone; no shard ran.
    assert sorted(call[0] for call in fleet.calls) == ["n1", "n1,n2,n3", "n4,n5"]
    statuses = {name: host.status for name, host in result.view().hosts.items()}
    assert statuses == {"n1": "rolled back", "n2": "not run", "n3": "not run", "n4": "not run", "n5": "not run"}
    assert result.shard_of()["n1"] == "canary" and result.shard_of()["n4"] == "check 2/2"
    assert result.lines()[-1] == "  stopped after the canary phase: no later phase started"


def test_after_the_canary_the_shards_run_and_one_report_holds_every_host() -> None:
    fleet = Fleet(fails={"n4"})
    result = _sharded(fleet)
    assert result.rc == 1 and result.stopped_after is None  # the last phase failed: nothing was left to stop
    view = result.view()
    # n4 failed in its shard; its shard's later hosts (n5) did not run; the other shard completed.
    assert {name: host.status for name, host in view.hosts.items()} == {
        "n1": "changed", "n2": "changed", "n3": "changed", "n4": "rolled back", "n5": "not run"}
    # Counts add up over the runs a host was in: n1's check run (1 ok) and its canary run (1 ok, 1 changed).
    assert (view.hosts["n1"].ok, view.hosts["n1"].changed) == (2, 1)
    # Phase by phase: the two checks (check only), the canary, then the two shards.
    assert sorted(fleet.calls[:2]) == [("n1,n2,n3", {"node_upgrade_check_only": True}),
                                       ("n4,n5", {"node_upgrade_check_only": True})]
    assert fleet.calls[2] == ("n1", {}) and sorted(fleet.calls[3:]) == [("n2,n3", {}), ("n4,n5", {})]
    assert result.shard_of() == {"n1": "canary", "n2": "shard 1/2", "n3": "shard 1/2", "n4": "shard 2/2",
                                 "n5": "shard 2/2"}


def test_every_line_a_shard_prints_names_the_shard() -> None:
    out = io.StringIO()
    first, second = PrefixedOut(out, "[shard 1/2] "), PrefixedOut(out, "[shard 2/2] ")
    first.write("[00:01] == Preflight\n[00:02] h1 changed")
    second.write("[00:01] == Preflight\n")
    first.write(" task\n")
    assert out.getvalue().splitlines() == ["[shard 1/2] [00:01] == Preflight", "[shard 2/2] [00:01] == Preflight",
                                           "[shard 1/2] [00:02] h1 changed task"]


def test_a_shard_whose_process_left_no_progress_fails_and_its_hosts_did_not_run(tmp_path: Path) -> None:
    import sys

    run = shard_process([sys.executable, "-c", "import sys; print('refused'); sys.exit(2)"], io.StringIO(), False,
                        tmp_path)
    outcome = run(ShardRun("shards", "shard 1/1", ("n1", "n2")))
    assert outcome.rc == 2 and {h: v.status for h, v in outcome.view.hosts.items()} == {"n1": "not run",
                                                                                         "n2": "not run"}


def test_a_merged_view_keeps_the_last_runs_outcome_of_each_host() -> None:
    first, second = ProgressView(out=io.StringIO()), ProgressView(out=io.StringIO())
    first.host("n1").not_run = True
    second.host("n1").outcomes["upgrade"] = "upgraded"
    second.host("n1").changed = 3
    merged = merged_view([first, second])
    assert merged.hosts["n1"].status == "changed" and merged.hosts["n1"].changed == 3
    assert ShardRun("shards", "shard 1/1", ("n1",)).check_only is False
