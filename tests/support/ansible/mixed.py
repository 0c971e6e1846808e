"""The mixed lab (stacks/Pulumi.lab-mixed.yaml): one node per vendor group beyond NVIDIA and AMD,
run through each playbook once per test session, however many vendor test modules read the
results (tests/ansible/test_nodes_gaudi.py, test_nodes_ascend.py, test_nodes_neuron.py). A
playbook run costs the same fixed start whether it serves one host or three, so every run serves
every vendor; each module asserts on its own hosts.

Every run starts its nodes from the snapshot of the first apply and stops them before it returns,
keeping what the tests read (installed packages, reports, digests, progress) in plain data.
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelplane.nodes.progress import ProgressView
from accelplane.nodes.runner import RunResult
from tests.support.ansible import lab, nodes
from tests.support.ansible.catalog import ARCH, ASCEND, GAUDI, NEURON

# group -> (vendor, first host, its profile)
GROUPS = {
    "gaudi3-train": ("intel", "gaudi3-01", "gaudi3-1220"),
    "trn2-train": ("aws", "trn2-01", "trn2-neuron226"),
    "a2-train": ("huawei", "ascend-01", "ascend910b-cann82"),
}


def _profile(name: str) -> dict[str, str]:
    return dict(lab.platform_of(lab.lab_document(lab.MIXED_LAB_STACK))["software_profiles"][name])


def next_profiles() -> dict[str, tuple[str, dict[str, str]]]:
    """group -> (name, versions) of each group's next release in the lab: one whose driver does not
    load (catalog BROKEN_GAUDI, BROKEN_NEURON, BROKEN_ASCEND), so that validation fails after the install."""
    build, torch = GAUDI["1.23.0"]
    neuron = NEURON["2.27.0"]
    ascend = ASCEND["8.3.RC1"]
    return {
        "gaudi3-train": (
            "gaudi3-1230",
            {**_profile("gaudi3-1220"), "gaudi_sw": "1.23.0", "gaudi_build": build, "torch": torch},
        ),
        "trn2-train": (
            "trn2-neuron227",
            {
                **_profile("trn2-neuron226"),
                "neuron_sdk": "2.27.0",
                "neuron_runtime": neuron["runtime"],
                "neuron_collectives": neuron["collectives"],
                "neuron_tools": neuron["tools"],
                "neuronx_cc": neuron["neuronx_cc"],
                "torch_neuronx": neuron["torch_neuronx"],
            },
        ),
        "a2-train": (
            "ascend910b-cann83",
            {
                **_profile("ascend910b-cann82"),
                "cann": "8.3.RC1",
                "ascend_driver": ascend["driver"],
                "ascend_firmware": ascend["firmware"],
                "torch_npu": ascend["torch_npu"],
                "torch": ascend["torch"],
            },
        ),
    }


@dataclass
class NodeState:
    """What a test reads from a node after a run."""

    installed: dict[str, tuple[str, str]]
    files: dict[str, str | None] = field(default_factory=dict)


@dataclass
class Runs:
    first: RunResult | None = None
    second: RunResult | None = None
    snapshots: dict[str, Path] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    applied: dict[str, NodeState] = field(default_factory=dict)
    check: dict[str, Any] = field(default_factory=dict)
    drift: dict[str, dict[str, Any]] = field(default_factory=dict)
    upgrade: dict[str, Any] = field(default_factory=dict)


_RUNS: dict[Path, Runs] = {}

# Files the tests read after a run (node path -> kept as text, or the link target).
READ = (
    "etc/apt/preferences.d/accelplane-habana_gaudi.pref",
    "etc/apt/preferences.d/accelplane-aws_neuron.pref",
    "etc/ansible/facts.d/accelplane.fact",
    # What the Ascend installers recorded (roles/ascend_npu) and CANN's environment file.
    "usr/local/Ascend/driver/version.info",
    "usr/local/Ascend/firmware/version.info",
    f"usr/local/Ascend/ascend-toolkit/latest/{ARCH}-linux/ascend_toolkit_install.info",
    "usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info",
    "etc/profile.d/accelplane-ascend.sh",
    "etc/containerd/config.toml",
)


def _state(node: nodes.LabNode) -> NodeState:
    files: dict[str, str | None] = {}
    for inside in READ:
        path = node.path(inside)
        files[inside] = path.read_text() if path.exists() else None
    link = node.path("opt/accelplane/venv")
    files["venv"] = link.readlink().name if link.is_symlink() else None
    files["dkms"] = node.run("dkms", "status", check=False).stdout  # none on Ascend nodes
    pip = node.run("/opt/accelplane/venv/bin/python", "-m", "pip", "list", "--format=json", check=False).stdout
    files["pip"] = pip
    return NodeState(node.installed(), files)


def _stack(work: Path, hosts: dict[str, list[tuple[str, Path]]], **options: Any) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    return lab.write_stack(work, hosts, base=lab.MIXED_LAB_STACK, **options)


def runs(work: Path, lab_root: Path, lab_repo: Path) -> Runs:
    """The session's runs in `work` (the first caller pays): site.yml twice on fresh nodes, site.yml
    in check mode towards the next releases, validate.yml after drift, upgrade.yml to releases
    that fail validation (every group's host is a canary) and roll back."""
    if work in _RUNS:
        return _RUNS[work]
    from tests.ansible.conftest import NodeFactory

    found = Runs()
    # Fresh nodes: install, validate, record; then the same again, which must change nothing.
    factory = NodeFactory(work / "apply", lab_root, lab_repo)
    try:
        started = {group: factory(host, vendor=vendor) for group, (vendor, host, _) in GROUPS.items()}
        stack = _stack(work / "apply", {g: [(GROUPS[g][1], n.root)] for g, n in started.items()})
        found.first = lab.run("site.yml", stack, work / "apply")
        assert found.first.rc == 0, lab.failure(found.first)
        for group, node in started.items():
            host = GROUPS[group][1]
            found.reports[host] = json.loads((found.first.report_dir / f"{host}.json").read_text())
            found.snapshots[host] = nodes.snapshot(node, work / "snapshots" / host)
            found.applied[host] = _state(node)
        found.second = lab.run("site.yml", stack, work / "apply")
    finally:
        factory.stop()
    _RUNS[work] = found
    return found


def _from_snapshots(found: Runs, factory: Any) -> dict[str, nodes.LabNode]:
    return {
        group: factory(host, vendor=vendor, snapshot=found.snapshots[host])
        for group, (vendor, host, _) in GROUPS.items()
    }


# The session's runs and where they run (work directory, lab root, lab repository).
Session = tuple[Runs, tuple[Path, Path, Path]]


def session_runs(tmp_path_factory: Any, lab_root: Path, lab_repo: Path) -> Session:
    """The session's runs and where they are (the vendor modules' `runs` fixture)."""
    where = (tmp_path_factory.getbasetemp() / "mixed", lab_root, lab_repo)
    return runs(*where), where


def assert_second_apply_changes_nothing(found: Runs, host: str) -> None:
    second = found.second
    assert second is not None
    assert second.rc == 0, lab.failure(second)
    summary = second.view.hosts[host]
    assert summary.changed == 0, lab.failure(second)
    assert summary.outcomes["reboot"] == "not_needed"


def checked(session: Session, host: str) -> dict[str, Any]:
    """The check-mode run, asserted to succeed, to change `host` towards a reboot and to write nothing."""
    found, where = session
    check = check_run(found, *where)
    assert check["result"].rc == 0, lab.failure(check["result"])
    summary = check["result"].view.hosts[host]
    assert summary.changed > 0 and summary.outcomes["check_reboot"] == "would_reboot", lab.failure(check["result"])
    assert check["unchanged"][host] is True
    return check


def rolled_back(session: Session, host: str, profile: str) -> tuple[str, dict[str, Any]]:
    """(host's line, upgrade run) of the failed canary, asserted to have rolled `host` back to `profile`."""
    found, where = session
    upgrade = upgrade_run(found, *where)
    assert upgrade["rc"] == 1, upgrade["out"]
    message = next(line for line in upgrade["out"].splitlines() if line.startswith(f"{host}: "))
    assert f"rolled back to {profile} and validated; rollout stopped" in message, upgrade["out"]
    assert json.loads(upgrade["after"][host].files["etc/ansible/facts.d/accelplane.fact"] or "{}")["profile"] == profile
    assert upgrade["reports"][f"{host}.rollback"]["ok"] is True
    return message, upgrade


def drifted(session: Session, host: str) -> dict[str, Any]:
    """`host`'s report of the validate run after drift (drift_run), asserted to have failed."""
    found, where = session
    drift = drift_run(found, *where)[host]
    assert drift["rc"] != 0
    return drift["report"]


def check_run(found: Runs, work: Path, lab_root: Path, lab_repo: Path) -> dict[str, Any]:
    """site.yml --check towards each group's next release, on applied nodes."""
    if found.check:
        return found.check
    from tests.ansible.conftest import NodeFactory
    from tests.ansible.test_nodes_apply import tree_digest

    factory = NodeFactory(work / "check", lab_root, lab_repo)
    try:
        started = _from_snapshots(found, factory)
        before = {GROUPS[g][1]: tree_digest(n.upper) for g, n in started.items()}
        upcoming = next_profiles()
        stack = _stack(
            work / "check",
            {g: [(GROUPS[g][1], n.root)] for g, n in started.items()},
            extra_profiles=dict(upcoming.values()),
            profiles={group: name for group, (name, _) in upcoming.items()},
        )
        out = io.StringIO()
        result = lab.run("site.yml", stack, work / "check", check=True, view=ProgressView(out=out, check=True))
        found.check = {
            "result": result,
            "progress": out.getvalue(),
            "unchanged": {GROUPS[g][1]: tree_digest(n.upper) == before[GROUPS[g][1]] for g, n in started.items()},
            "after": {GROUPS[g][1]: _state(n) for g, n in started.items()},
        }
    finally:
        factory.stop()
    return found.check


def drift_run(found: Runs, work: Path, lab_root: Path, lab_repo: Path) -> dict[str, dict[str, Any]]:
    """validate.yml after each node drifted: a package released from its hold and the role's pin
    file deleted (what an operator's `apt-mark unhold` and a clean-up would leave); on the Ascend
    node, installer-recorded versions changed by hand."""
    if found.drift:
        return found.drift
    from tests.ansible.conftest import NodeFactory

    drift = {
        "gaudi3-train": ("habanalabs-thunk", "etc/apt/preferences.d/accelplane-habana_gaudi.pref"),
        "trn2-train": ("aws-neuronx-collectives", "etc/apt/preferences.d/accelplane-aws_neuron.pref"),
    }
    # A file edited by hand: (path, text, replacement); the Gaudi node's habana runtime moved to runc.
    edits = {"gaudi3-train": ("etc/containerd/config.toml", "/usr/bin/habana-container-runtime", "/usr/bin/runc")}
    # The Ascend node (no apt packages of its own): its firmware flashed to another release by hand,
    # its CANN kernels removed.
    firmware = ASCEND["8.2.RC1"]["firmware"]
    edits["a2-train"] = ("usr/local/Ascend/firmware/version.info", f"Version={firmware}", "Version=7.7.0.9.999")
    removed = {"a2-train": "usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info"}
    factory = NodeFactory(work / "drift", lab_root, lab_repo)
    try:
        started = _from_snapshots(found, factory)
        for group, node in started.items():
            if group in drift:
                package, pin = drift[group]
                node.run("apt-mark", "unhold", package)
                node.path(pin).unlink()
            if group in removed:
                node.path(removed[group]).unlink()
            if group in edits:
                path, text, replacement = edits[group]
                node.path(path).write_text(node.path(path).read_text().replace(text, replacement))
        stack = _stack(work / "drift", {g: [(GROUPS[g][1], n.root)] for g, n in started.items()})
        result = lab.run("validate.yml", stack, work / "drift")
        for group in started:
            host = GROUPS[group][1]
            found.drift[host] = {
                "rc": result.rc,
                "report": json.loads((result.report_dir / f"{host}.json").read_text()),
            }
    finally:
        factory.stop()
    return found.drift


def upgrade_run(found: Runs, work: Path, lab_root: Path, lab_repo: Path) -> dict[str, Any]:
    """`accelplane nodes upgrade` to the next releases, every group's host in the canary batch: the
    new drivers do not load, validation fails, each host rolls back to its validated profile."""
    if found.upgrade:
        return found.upgrade
    from accelplane.cli import main
    from tests.ansible.conftest import NodeFactory

    factory = NodeFactory(work / "upgrade", lab_root, lab_repo)
    try:
        started = _from_snapshots(found, factory)
        upcoming = next_profiles()
        stack = _stack(
            work / "upgrade",
            {g: [(GROUPS[g][1], n.root)] for g, n in started.items()},
            extra_profiles=dict(upcoming.values()),
            profiles={group: name for group, (name, _) in upcoming.items()},
            rollout={"canary": len(GROUPS)},
        )
        reports = work / "upgrade" / "reports"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = main(["nodes", "upgrade", "--stack-file", str(stack), "--report-dir", str(reports)])
        found.upgrade = {
            "rc": rc,
            "out": out.getvalue(),
            "after": {GROUPS[g][1]: _state(n) for g, n in started.items()},
            "reports": {path.stem: json.loads(path.read_text()) for path in reports.glob("*.json")},
        }
    finally:
        factory.stop()
    return found.upgrade
