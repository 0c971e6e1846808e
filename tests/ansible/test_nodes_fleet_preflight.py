"""upgrade.yml checks every host's packages, wheels and installers before the canary changes: a
host whose mirror lacks the new framework build refuses the upgrade for the whole fleet, no host is
drained or changed, and the summary says "refused" (not "rolled back"; no rollback ran)."""

from __future__ import annotations

import subprocess

from tests.ansible.test_nodes_apply import tree_digest
from tests.support.ansible import lab


def test_one_host_lacking_a_wheel_refuses_the_upgrade_before_the_canary_changes(applied, make_node, tmp_path):
    canary = make_node("h100-01", snapshot=applied.h100)
    second = make_node("h100-02", snapshot=applied.h100)
    # The second host's wheel mirror is empty: an empty file system over the lab's wheel directory.
    wheels = second.path("srv/accelplane-lab/wheels")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(wheels)], check=True)
    second.mounts.append(wheels)
    before = tree_digest(canary.upper), tree_digest(second.upper)
    hooks = tmp_path / "hooks.log"
    stack = lab.write_stack(
        tmp_path,
        {"h100-train": [("h100-01", canary.root), ("h100-02", second.root)]},
        profiles={"h100-train": "h100-r580"},
        rollout={
            "drain": ["sh", "-c", f"echo drain {{host}} >> {hooks}"],
            "uncordon": ["sh", "-c", f"echo uncordon {{host}} >> {hooks}"],
        },
    )
    result = lab.run("upgrade.yml", stack, tmp_path)
    assert result.rc != 0
    hosts = result.view.hosts
    assert hosts["h100-02"].status == "refused", lab.failure(result)
    assert "framework: no wheel of torch 2.9.0+cu130" in hosts["h100-02"].message
    assert hosts["h100-01"].outcomes.get("upgrade") in ("checking", "checked"), lab.failure(result)
    assert hosts["h100-01"].status == "not run", lab.failure(result)
    summary = result.view.summary()
    assert "h100-02: framework: no wheel of torch 2.9.0+cu130" in summary, summary
    assert "not run (the run stopped before their turn): h100-01" in summary, summary
    # No host was drained, changed or rolled back; no scratch directory stays.
    assert not hooks.exists()
    assert (tree_digest(canary.upper), tree_digest(second.upper)) == before
    assert not list(second.path("etc/lab").glob("*.rollback*"))
    assert not (result.report_dir / "h100-02.rollback.json").exists()
    for node in (canary, second):
        assert node.installed()["nvidia-driver-cuda"] == ("570.172.08-1", "hi")
        assert list(node.path("tmp").glob("*accelplane-probe")) == []
