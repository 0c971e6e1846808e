"""Intel Gaudi hosts (roles/habana_gaudi through node_software) on lab nodes: the release's
habanalabs-* packages pinned and held, Intel's PyTorch for Gaudi in its own environment, hl-smi
and a matmul on `hpu` validated; a second apply changes nothing; check mode writes nothing;
validate names drift; a canary whose new release does not load rolls back.

The stand-ins (tests/support/ansible/catalog.py GAUDI) are real .debs in the lab's apt
repository: habanalabs-dkms registers with (stand-in) DKMS, habanalabs-firmware-tools carries an
hl-smi that prints the real tool's CSV for /etc/lab/hardware.json; release 1.23.0's hl-smi fails
like a driver that did not load. The runs are the mixed lab's, shared with the other vendors'
modules (tests/support/ansible/mixed.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.ansible import mixed
from tests.support.ansible.catalog import GAUDI_PACKAGES

HOST = "gaudi3-01"
PROFILE = "gaudi3-1220"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, lab_root: Path, lab_repo: Path) -> mixed.Session:
    return mixed.session_runs(tmp_path_factory, lab_root, lab_repo)


def test_site_installs_the_gaudi_release_pinned_held_and_validated(runs):
    found, _ = runs
    state = found.applied[HOST]
    for name in GAUDI_PACKAGES:
        assert state.installed[name] == ("1.22.0-740", "hi"), name
    assert state.installed["containerd.io"] == ("1.7.27-1", "hi")
    # The container runtime hook, pinned with the release, is containerd's default runtime.
    assert state.installed["habanalabs-container-runtime"] == ("1.22.0-740", "hi")
    config = state.files["etc/containerd/config.toml"] or ""
    assert 'default_runtime_name = "habana"' in config, config
    assert (
        '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.habana.options]\n'
        '  BinaryName = "/usr/bin/habana-container-runtime"\n'
    ) in config, config
    pins = state.files["etc/apt/preferences.d/accelplane-habana_gaudi.pref"] or ""
    assert "Package: habanalabs-dkms" in pins and "Pin: version 1.22.0-740" in pins
    assert (state.files["dkms"] or "").startswith("habanalabs/1.22.0-740,")
    # Intel's PyTorch build for the release, with the Gaudi bridge of the same build.
    assert state.files["venv"] == "torch-2.7.1-hpu.synapse.v1.22.0"
    assert {p["name"]: p["version"] for p in json.loads(state.files["pip"] or "[]")}[
        "habana-torch-plugin"
    ] == "1.22.0.740"
    # NVIDIA's and AMD's components stay off the node.
    assert not [name for name in state.installed if name.startswith(("libnccl", "rccl", "nvidia", "rocm"))]
    report = found.reports[HOST]
    assert report["ok"] is True, report["mismatches"]
    assert len(report["devices"]) == 8 and report["devices"][0]["name"] == "HL-325L"
    assert report["devices"][0]["driver_version"] == "1.22.0-740"
    assert report["checks"]["matmul"]["error"] is None and report["checks"]["matmul"]["devices"][0]["name"] == "GAUDI3"
    assert found.first is not None and found.first.view.hosts[HOST].outcomes["reboot"] == "rebooted"


def test_second_apply_changes_nothing(runs):
    mixed.assert_second_apply_changes_nothing(runs[0], HOST)


def test_check_mode_reports_the_next_release_and_writes_nothing(runs):
    check = mixed.checked(runs, HOST)
    assert "habanalabs-dkms=1.23.0-695" in check["progress"], check["progress"]
    assert "2.9.0+hpu.synapse.v1.23.0" in check["progress"], check["progress"]
    assert check["after"][HOST].installed["habanalabs-dkms"] == ("1.22.0-740", "hi")


def test_validate_names_the_drift_of_a_gaudi_node(runs):
    report = mixed.drifted(runs, HOST)
    mismatches = report["mismatches"]
    assert "habanalabs: habanalabs-thunk is not held" in mismatches, mismatches
    assert "habanalabs: habanalabs-dkms is not pinned to 1.22.0-740 (pin: none)" in mismatches, mismatches
    assert (
        "habanalabs-container-runtime: habanalabs-container-runtime is not pinned to 1.22.0-740 (pin: none)"
        in mismatches
    ), mismatches
    # containerd's habana runtime, pointed at runc by hand (tests/support/ansible/mixed.py drift_run).
    assert (
        "containerd: runtime habana (BinaryName /usr/bin/habana-container-runtime) is not registered in "
        "/etc/containerd/config.toml"
    ) in mismatches, mismatches
    assert [
        m for m in mismatches if not m.startswith(("habanalabs:", "habanalabs-container-runtime:", "containerd:"))
    ] == [], mismatches
    assert report["checks"]["devices"] == []  # the devices themselves are fine


def test_failed_canary_rolls_back_to_the_validated_release(runs):
    message, upgrade = mixed.rolled_back(runs, HOST, PROFILE)
    assert "hl-smi failed (rc 3)" in message, upgrade["out"]
    state = upgrade["after"][HOST]
    for name in GAUDI_PACKAGES:
        assert state.installed[name] == ("1.22.0-740", "hi"), name
    assert state.files["venv"] == "torch-2.7.1-hpu.synapse.v1.22.0"
    assert upgrade["reports"][HOST]["ok"] is False
