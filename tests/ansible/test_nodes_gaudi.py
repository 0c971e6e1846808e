"""Intel Gaudi hosts (roles/habana_gaudi through node_software) on lab nodes: the release's
habanalabs-* packages pinned and held, Intel's PyTorch for Gaudi in its own environment, hl-smi
and a matmul on `hpu` validated; a second apply changes nothing; check mode writes nothing;
validate names drift; a canary whose new release does not load rolls back.

The stand-ins (tests/support/ansible/catalog.py GAUDI) are real .debs in the lab's apt
repository: habanalabs-dkms registers with (stand-in) DKMS, habanalabs-firmware-tools carries an
hl-smi that prints the real tool's CSV for /etc/lab/hardware.json; release 1.23.0's hl-smi fails
like a driver that did not load. One node is applied once per module; later tests start from its
snapshot.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelplane.cli import main
from tests.ansible.test_nodes_apply import tree_digest
from tests.support.ansible import lab, nodes
from tests.support.ansible.catalog import GAUDI, GAUDI_PACKAGES

GROUP = "gaudi3-train"
PROFILE = "gaudi3-1220"


def _stack(directory: Path, hosts: list[tuple[str, Path]], **options) -> Path:
    return lab.write_stack(directory, {GROUP: hosts}, base=lab.MIXED_LAB_STACK, **options)


def _next_release() -> dict[str, str]:
    """Profile gaudi3-1220 moved to the lab's 1.23.0 release (whose driver does not load)."""
    build, torch = GAUDI["1.23.0"]
    profile = dict(lab.platform_of(lab.lab_document(lab.MIXED_LAB_STACK))["software_profiles"][PROFILE])
    profile.update(gaudi_sw="1.23.0", gaudi_build=build, torch=torch)
    return profile


class Applied:
    def __init__(self, first, second, snapshot: Path, report: dict):
        self.first, self.second, self.snapshot, self.report = first, second, snapshot, report


@pytest.fixture(scope="module")
def gaudi(tmp_path_factory: pytest.TempPathFactory, lab_root: Path, lab_repo: Path):
    """site.yml twice on one fresh Gaudi node; its upper layer after the first run is the snapshot."""
    from tests.ansible.conftest import NodeFactory

    work = tmp_path_factory.mktemp("gaudi")
    factory = NodeFactory(work, lab_root, lab_repo)
    try:
        node = factory("gaudi3-01", vendor="intel")
        stack = _stack(work, [("gaudi3-01", node.root)])
        first = lab.run("site.yml", stack, work)
        assert first.rc == 0, lab.failure(first)
        report = json.loads((first.report_dir / "gaudi3-01.json").read_text())
        snapshot = nodes.snapshot(node, work / "snapshot")
        second = lab.run("site.yml", stack, work)
        yield Applied(first, second, snapshot, report)
    finally:
        factory.stop()


def test_site_installs_the_gaudi_release_pinned_held_and_validated(gaudi, make_node):
    node = make_node("gaudi3-01", vendor="intel", snapshot=gaudi.snapshot)
    installed = node.installed()
    for name in GAUDI_PACKAGES:
        assert installed[name] == ("1.22.0-740", "hi"), name
    assert installed["containerd.io"] == ("1.7.27-1", "hi")
    pins = node.path("etc/apt/preferences.d/accelplane-habana_gaudi.pref").read_text()
    assert "Package: habanalabs-dkms" in pins and "Pin: version 1.22.0-740" in pins
    assert node.run("dkms", "status").stdout.startswith("habanalabs/1.22.0-740,")
    # Intel's PyTorch build for the release, with the Gaudi bridge of the same build.
    assert node.path("opt/accelplane/venv").readlink().name == "torch-2.7.1-hpu.synapse.v1.22.0"
    pip = node.run("/opt/accelplane/venv/bin/python", "-m", "pip", "list", "--format=json").stdout
    assert {p["name"]: p["version"] for p in json.loads(pip)}["habana-torch-plugin"] == "1.22.0.740"
    # NVIDIA's and AMD's components stay off the node.
    assert not [name for name in installed if name.startswith(("libnccl", "rccl", "nvidia", "rocm"))]
    report = gaudi.report
    assert report["ok"] is True, report["mismatches"]
    assert len(report["devices"]) == 8 and report["devices"][0]["name"] == "HL-325L"
    assert report["devices"][0]["driver_version"] == "1.22.0-740"
    assert report["checks"]["matmul"]["error"] is None and report["checks"]["matmul"]["devices"][0]["name"] == "GAUDI3"
    assert gaudi.first.view.hosts["gaudi3-01"].outcomes["reboot"] == "rebooted"


def test_second_apply_changes_nothing(gaudi):
    assert gaudi.second.rc == 0, lab.failure(gaudi.second)
    host = gaudi.second.view.hosts["gaudi3-01"]
    assert host.changed == 0, lab.failure(gaudi.second)
    assert host.outcomes["reboot"] == "not_needed"


def test_check_mode_reports_the_next_release_and_writes_nothing(gaudi, make_node, tmp_path):
    node = make_node("gaudi3-01", vendor="intel", snapshot=gaudi.snapshot)
    before = tree_digest(node.upper)
    stack = _stack(
        tmp_path,
        [("gaudi3-01", node.root)],
        extra_profiles={"gaudi3-1230": _next_release()},
        profiles={GROUP: "gaudi3-1230"},
    )
    result = lab.run("site.yml", stack, tmp_path, check=True)
    assert result.rc == 0, lab.failure(result)
    host = result.view.hosts["gaudi3-01"]
    assert host.changed > 0 and host.outcomes["check_reboot"] == "would_reboot", lab.failure(result)
    assert tree_digest(node.upper) == before
    assert node.installed()["habanalabs-dkms"] == ("1.22.0-740", "hi")


def test_validate_names_the_drift_of_a_gaudi_node(gaudi, make_node, tmp_path):
    node = make_node("gaudi3-01", vendor="intel", snapshot=gaudi.snapshot)
    node.run("apt-mark", "unhold", "habanalabs-thunk")
    node.path("etc/apt/preferences.d/accelplane-habana_gaudi.pref").unlink()
    result = lab.run("validate.yml", _stack(tmp_path, [("gaudi3-01", node.root)]), tmp_path)
    assert result.rc != 0
    report = json.loads((result.report_dir / "gaudi3-01.json").read_text())
    mismatches = report["mismatches"]
    assert "habanalabs: habanalabs-thunk is not held" in mismatches, mismatches
    assert "habanalabs: habanalabs-dkms is not pinned to 1.22.0-740 (pin: none)" in mismatches, mismatches
    assert [m for m in mismatches if not m.startswith(("habanalabs:", "habanalabs-container-runtime:"))] == []
    assert report["checks"]["devices"] == []  # the devices themselves are fine


def test_failed_canary_rolls_back_to_the_validated_release(gaudi, make_node, tmp_path, capsys):
    canary = make_node("gaudi3-01", vendor="intel", snapshot=gaudi.snapshot)
    second = make_node("gaudi3-02", vendor="intel", snapshot=gaudi.snapshot)
    stack = _stack(
        tmp_path,
        [("gaudi3-01", canary.root), ("gaudi3-02", second.root)],
        extra_profiles={"gaudi3-1230": _next_release()},
        profiles={GROUP: "gaudi3-1230"},
    )
    assert main(["nodes", "upgrade", "--stack-file", str(stack), "--report-dir", str(tmp_path / "reports")]) == 1
    out = capsys.readouterr().out
    message = next(line for line in out.splitlines() if line.startswith("gaudi3-01: "))
    assert f"rolled back to {PROFILE} and validated; rollout stopped" in message, out
    assert "hl-smi failed (rc 3)" in message, out
    installed = canary.installed()
    for name in GAUDI_PACKAGES:
        assert installed[name] == ("1.22.0-740", "hi"), name
    assert canary.path("opt/accelplane/venv").readlink().name == "torch-2.7.1-hpu.synapse.v1.22.0"
    assert json.loads(canary.path("etc/ansible/facts.d/accelplane.fact").read_text())["profile"] == PROFILE
    assert json.loads((tmp_path / "reports" / "gaudi3-01.rollback.json").read_text())["ok"] is True
    # The rollout stopped at the canary.
    assert second.installed()["habanalabs-dkms"] == ("1.22.0-740", "hi")
