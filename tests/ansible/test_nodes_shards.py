"""`accelplane nodes --shards N` on lab nodes: several ansible-runner processes at once on one machine, for
correctness (two cores cannot show scale-out): a sharded validate reports what one run of the same
validation reported, host by host, and a sharded upgrade whose canary fails touches no host of any shard.

The nodes start from the session's applied H100 and MI300X nodes (conftest `applied`). The canary's
failure is its drain hook's (a command that fails for the canary only): the same gate as a failed
validation, without an install to wait for (the rollback after a failed install is test_nodes_upgrade's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from accelplane.cli import main
from tests.support.ansible import lab


def _summary(out: str) -> dict[str, list[str]]:
    """The summary table's rows (host -> cells) from the command's output."""
    lines = out.split("\n\n", 1)[1].splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("host "))
    rows = {}
    for line in lines[header + 1:]:
        cells = line.split()
        if not cells or cells[0].endswith(":") or line.startswith(("not run", "runs ", " ")):
            break
        rows[cells[0]] = cells
    return rows


def _report(path: Path) -> dict[str, Any]:
    return _selected(json.loads(path.read_text()))


def _selected(report: dict[str, Any]) -> dict[str, Any]:
    """What a validation report says about the node (its timings left out: they differ run to run)."""
    return {key: report[key] for key in ("host", "ok", "profile", "mismatches", "devices")}


def test_a_sharded_validate_reports_what_one_run_reports(applied, make_node, tmp_path, capsys) -> None:
    """Two shards, one host each, on the session's applied nodes: each host's report says what the
    validation inside their first apply said (one run of the same role), and the merged summary what a
    run on converged nodes says: ok, nothing changed or failed, no reboot."""
    h100 = make_node("h100-01", snapshot=applied.h100)
    amd = make_node("mi300x-01", vendor="amd", snapshot=applied.mi300x)
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", h100.root)],
                                       "mi300x-infer": [("mi300x-01", amd.root)]})
    sharded = tmp_path / "sharded"
    assert main(["nodes", "validate", "--stack-file", str(stack), "--report-dir", str(sharded),
                 "--shards", "2"]) == 0
    out = capsys.readouterr().out
    # Each host in its own process: both shards name their hosts.
    assert "in 2 shards run(s), one phase after the other" in out
    runs = out.split("runs (phase by phase; which hosts each ran):\n", 1)[1].splitlines()
    assert [line.split()[:3] for line in runs[:2]] == [["shard", "1/2", "ok"], ["shard", "2/2", "ok"]]
    assert runs[0].endswith("h100-01") and runs[1].endswith("mi300x-01")
    rows = _summary(out)
    assert sorted(rows) == ["h100-01", "mi300x-01"]
    for host in rows:
        # status, changed, failed, reboot; the report in the one directory every shard wrote to
        assert [rows[host][1], *rows[host][3:6]] == ["ok", "0", "0", "-"], rows
        assert rows[host][-1] == str(sharded / f"{host}.json")
    assert _report(sharded / "h100-01.json") == _selected(applied.h100_report)
    assert _report(sharded / "mi300x-01.json") == _selected(applied.mi300x_report)


def test_a_failed_canary_stops_every_shard_before_it_touches_a_host(applied, make_node, tmp_path,
                                                                      capsys) -> None:
    nodes = {name: make_node(name, snapshot=applied.h100) for name in ("h100-01", "h100-02", "h100-03")}
    hooks = tmp_path / "hooks.log"
    stack = lab.write_stack(
        tmp_path, {"h100-train": [(name, node.root) for name, node in nodes.items()]},
        profiles={"h100-train": "h100-r580"},
        rollout={"drain": ["sh", "-c", f"echo drain {{host}} >> {hooks}; test {{host}} != h100-01"]},
    )
    assert main(["nodes", "upgrade", "--stack-file", str(stack), "--shards", "2"]) == 1
    out = capsys.readouterr().out
    rows = _summary(out)
    assert rows["h100-01"][1] == "failed", out
    assert rows["h100-02"][1:3] == ["not", "run"] and rows["h100-03"][1:3] == ["not", "run"], out
    runs = out.split("runs (phase by phase; which hosts each ran):\n", 1)[1].splitlines()
    # Every host was checked (two processes), then the canary alone failed; no shard started.
    assert [" ".join(line.split()[:3]) for line in runs[:3]] == ["check 1/2 ok", "check 2/2 ok", "canary failed (rc"]
    assert "stopped after the canary phase: no later phase started" in out
    # Only the canary was drained; the other hosts kept their profile, untouched.
    assert hooks.read_text().splitlines() == ["drain h100-01"]
    for name in ("h100-01", "h100-02", "h100-03"):
        assert nodes[name].installed()["nvidia-driver-cuda"] == ("570.172.08-1", "hi"), name
