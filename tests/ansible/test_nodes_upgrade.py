"""upgrade.yml on lab nodes: canary first, then batches; upgrade to the next profile; a failed
validation rolls the host back to its last validated profile, removing what the failed upgrade
added (roles/package_families), and stops the rollout.

The broken profile pins driver 580.105.08, whose stand-in nvidia-smi fails like a driver that
did not load (tests/support/ansible/catalog.py BROKEN_DRIVERS), and switches the kernel module
flavour: its nvidia-kernel-dkms replaces nothing the rollback installs, so only the rollback's
prune takes it away (one failed upgrade serves both: a lab run is the suite's costliest step).
Drain and uncordon hooks log to a file on the controller. The failed rollout runs through
`accelplane nodes upgrade`, as a user would: its summary and the run directory it keeps are part
of what is tested.
"""

from __future__ import annotations

import json
import tempfile

from accelplane.cli import main
from tests.support.ansible import lab


def test_upgrade_moves_the_host_to_the_next_profile(applied, make_node, tmp_path):
    node = make_node("h100-01", snapshot=applied.h100)
    boot_id = node.path("var/lib/lab/boot_id").read_text()
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]}, profiles={"h100-train": "h100-r580"})
    result = lab.run("upgrade.yml", stack, tmp_path)
    assert result.rc == 0, lab.failure(result)
    host = result.view.hosts["h100-01"]
    assert host.outcomes == {"reboot": "rebooted", "upgrade": "upgraded"}
    assert node.path("var/lib/lab/boot_id").read_text() != boot_id
    installed = node.installed()
    assert installed["nvidia-driver-cuda"] == ("580.95.05-1", "hi")
    assert installed["nvidia-fabricmanager-580"] == ("580.95.05-1", "hi")
    assert installed["libnccl2"] == ("2.28.9-1+cuda13.0", "hi")
    assert installed["containerd.io"] == ("1.7.28-1", "hi")
    assert node.run("dkms", "status").stdout.startswith("nvidia/580.95.05,")
    # The old framework environment stays for a rollback; the link points at the new one.
    assert node.path("opt/accelplane/venvs/torch-2.8.0-cu128").is_dir()
    assert node.path("opt/accelplane/venv").readlink().name == "torch-2.9.0-cu130"
    state = json.loads(node.path("etc/ansible/facts.d/accelplane.fact").read_text())
    assert state["profile"] == "h100-r580"


def test_failed_validation_rolls_the_canary_back_and_stops_the_rollout(
    applied, make_node, tmp_path, monkeypatch, capsys
):
    canary = make_node("h100-01", snapshot=applied.h100)
    second = make_node("h100-02", snapshot=applied.h100)
    hooks = tmp_path / "hooks.log"
    broken = dict(lab.platform_of(lab.lab_document())["software_profiles"]["h100-r580"])
    broken.update(driver="580.105.08", fabric_manager="580.105.08", kernel_module="proprietary")
    stack = lab.write_stack(
        tmp_path,
        {"h100-train": [("h100-01", canary.root), ("h100-02", second.root)]},
        extra_profiles={"h100-r580-broken": broken},
        profiles={"h100-train": "h100-r580-broken"},
        rollout={
            "drain": ["sh", "-c", f"echo drain {{host}} >> {hooks}"],
            "uncordon": ["sh", "-c", f"echo uncordon {{host}} >> {hooks}"],
        },
    )
    tmp = tmp_path / "tmp"  # the run directory goes here: what stays of it can be seen
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert main(["nodes", "upgrade", "--stack-file", str(stack)]) == 1
    out = capsys.readouterr().out
    summary = out.split("\n\n", 1)[1].splitlines()
    rows = {line.split()[0]: line.split() for line in summary[1:3]}
    assert rows["h100-01"][1:3] == ["rolled", "back"], out
    message = next(line for line in summary if line.startswith("h100-01: "))
    assert "rolled back to h100-r570 and validated; rollout stopped" in message
    assert "nvidia-smi failed (rc 9)" in message
    # The rollout stopped before the second host's batch: it was not run, whatever Ansible counts
    # for it in the preflight play, and the summary says so.
    assert rows["h100-02"][1:3] == ["not", "run"], out
    assert "not run (the run stopped before their turn): h100-02" in summary
    # The failed run's directory stays, with Ansible's output and the reports, and is named.
    [kept] = tmp.glob("accelplane-nodes-*")
    assert summary[-1] == (
        f"kept {kept}: Ansible's output and events in artifacts/, validation reports in reports/; remove it when done"
    )
    assert sorted(path.name for path in kept.iterdir()) == ["artifacts", "reports"]
    assert "rollout stopped" in next(kept.glob("artifacts/*/stdout")).read_text()
    assert rows["h100-01"][-1] == str(kept / "reports" / "h100-01.json")
    # The canary runs the previous versions again, pinned and held, and validated.
    installed = canary.installed()
    assert installed["nvidia-driver-cuda"] == ("570.172.08-1", "hi")
    assert installed["nvidia-fabricmanager-570"] == ("570.172.08-1", "hi")
    assert installed["libnccl2"] == ("2.27.3-1+cuda12.8", "hi")
    # What the failed upgrade added is gone: the other kernel module flavour, the 580 Fabric Manager.
    held = {name: state for name, state in installed.items() if state[1][1:2] == "i"}
    assert "nvidia-kernel-dkms" not in held, held.get("nvidia-kernel-dkms")
    assert "nvidia-fabricmanager-580" not in held and "libnvidia-nscq-580" not in held
    assert held["nvidia-kernel-open-dkms"] == ("570.172.08-1", "hi")
    dkms = canary.run("dkms", "status").stdout.splitlines()
    assert dkms and all(line.startswith("nvidia/570.172.08,") for line in dkms), dkms
    assert "Pin: version 570.172.08-*" in canary.path("etc/apt/preferences.d/accelplane-nvidia_driver.pref").read_text()
    assert json.loads(canary.path("etc/ansible/facts.d/accelplane.fact").read_text())["profile"] == "h100-r570"
    failed_report = json.loads((kept / "reports" / "h100-01.json").read_text())
    rollback_report = json.loads((kept / "reports" / "h100-01.rollback.json").read_text())
    assert failed_report["ok"] is False and rollback_report["ok"] is True, rollback_report["mismatches"]
    assert rollback_report["profile"] == "h100-r570"
    # The rollout stopped: the second host was never drained nor changed.
    assert rows["h100-02"][4] == "0"  # changed
    assert second.installed()["nvidia-driver-cuda"] == ("570.172.08-1", "hi")
    assert hooks.read_text().split("\n")[:2] == ["drain h100-01", "uncordon h100-01"]
    assert "h100-02" not in hooks.read_text()
