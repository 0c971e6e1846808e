"""`accelplane nodes apply --check` on a node never set up: its apt sources do not name the stack's
repository yet, so check mode reads the preflight's scratch package lists, reports what would be
installed, says the driver change would reboot the node, writes nothing and exits 0.
"""

from __future__ import annotations

import io

from accelplane.nodes.progress import ProgressView
from tests.ansible.test_nodes_apply import tree_digest
from tests.support.ansible import lab

SKIP = ("tmp", "root", "var/cache", "var/log")


def test_check_mode_on_a_node_never_set_up_reports_what_would_be_installed(make_node, tmp_path):
    node = make_node("h100-01")
    # Ansible's remote scratch (/root/.ansible) and apt's caches aside: a fresh node's upper layer has
    # neither /root nor /var/cache yet.
    before = tree_digest(node.upper, skip=SKIP)
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]})
    out = io.StringIO()
    result = lab.run("site.yml", stack, tmp_path, check=True, view=ProgressView(out=out, check=True))
    assert result.rc == 0, lab.failure(result)
    progress = out.getvalue()
    # What would be installed, at the profile's versions, from the repository the node does not know yet.
    assert "nvidia-driver-cuda=570.172.08-1" in progress, progress
    assert "libnccl2=2.27.3-1+cuda12.8" in progress, progress
    assert "containerd.io=1.7.27-1" in progress, progress
    # The summary says what would happen, not what did.
    summary = result.view.summary().splitlines()
    assert summary[0].split()[:4] == ["host", "status", "ok", "would"], summary
    row = summary[1].split()
    assert row[0] == "h100-01" and row[1:3] == ["would", "change"], summary
    assert row[-3:-1] == ["would", "reboot"], summary
    # Nothing was written, and no scratch directory stays behind.
    assert tree_digest(node.upper, skip=SKIP) == before
    assert {path.name for path in node.upper.joinpath("root").glob("*")} <= {".ansible"}
    assert list(node.path("tmp").glob("*accelplane-probe")) == []
    assert not node.path("etc/apt/sources.list.d/accelplane.sources").exists()
    assert "nvidia-driver-cuda" not in node.installed()


def test_check_mode_summary_says_would_change_and_would_reboot():
    """The summary alone (no lab): node_reboot finds no reboot request in check mode, node_software's
    check-mode fact says a driver change would reboot; the status is what would happen."""
    view = ProgressView(out=io.StringIO(), check=True, expected_plays=1, clock=lambda: 0.0)
    play = {"play": "Install", "play_uuid": "4c1d2e3f-0000-4000-8000-000000000001"}
    view({"event": "playbook_on_play_start", "event_data": play})
    for facts in ({"node_software_check_reboot": "would_reboot"}, {"node_reboot_result": "not_needed"}):
        event = {"host": "n1", "task": "t", "res": {"changed": False, "ansible_facts": facts}, **play}
        view({"event": "runner_on_ok", "event_data": event})
    view({"event": "playbook_on_stats", "event_data": {"ok": {"n1": 9}, "changed": {"n1": 4}}})
    header, row = view.summary().splitlines()
    assert header.split()[3:5] == ["would", "change"], header
    assert row.split() == ["n1", "would", "change", "9", "4", "0", "would", "reboot", "-"], row
    # Outside check mode the same counts are what happened.
    assert ProgressView(out=io.StringIO()).host("n2").status == "ok"
