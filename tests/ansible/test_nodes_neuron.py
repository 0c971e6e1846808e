"""AWS Neuron on self-managed hosts (roles/aws_neuron through node_software) on lab nodes: the Neuron
SDK release's driver (the matrix's aws-neuronx-dkms of neuron_sdk), runtime, collectives and tools
pinned and held; torch-neuronx and neuronx-cc beside PyTorch's CPU build; neuron-ls and a compiled
matmul validated; a second apply changes nothing; check mode writes nothing; validate names
drift; a canary whose new release does not load rolls back.

The stand-ins (tests/support/ansible/catalog.py NEURON) carry the real package versions of SDK
2.26.0 and 2.27.0; 2.27.0's neuron-ls fails like a driver that did not load. The runs are the
mixed lab's, shared with the other vendors' modules (tests/support/ansible/mixed.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.ansible import mixed
from tests.support.ansible.catalog import NEURON

HOST = "trn2-01"
PROFILE = "trn2-neuron226"
RELEASE = NEURON["2.26.0"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, lab_root: Path, lab_repo: Path) -> mixed.Session:
    return mixed.session_runs(tmp_path_factory, lab_root, lab_repo)


def _release_installed(installed: dict[str, tuple[str, str]]) -> None:
    assert installed["aws-neuronx-dkms"] == (RELEASE["dkms"], "hi")
    assert installed["aws-neuronx-runtime-lib"] == (f"{RELEASE['runtime']}-dd5879008", "hi")
    assert installed["aws-neuronx-collectives"] == (f"{RELEASE['collectives']}-17a033bc8", "hi")
    assert installed["aws-neuronx-tools"] == (RELEASE["tools"], "hi")


def test_site_installs_the_neuron_release_pinned_held_and_validated(runs):
    found, _ = runs
    state = found.applied[HOST]
    _release_installed(state.installed)
    assert state.installed["containerd.io"] == ("1.7.27-1", "hi")
    pins = state.files["etc/apt/preferences.d/accelplane-aws_neuron.pref"] or ""
    # The driver's version is the matrix's for SDK 2.26.0, not typed in the profile.
    assert "Package: aws-neuronx-dkms\nPin: version 2.24.7.0\n" in pins, pins
    assert (state.files["dkms"] or "").startswith("aws-neuronx/2.24.7.0,")
    assert state.files["venv"] == "torch-2.8.0-cpu"
    pip = {p["name"]: p["version"] for p in json.loads(state.files["pip"] or "[]")}
    assert pip["torch-neuronx"] == RELEASE["torch_neuronx"] and pip["neuronx-cc"] == RELEASE["neuronx_cc"]
    assert not [name for name in state.installed if name.startswith(("libnccl", "rccl", "nvidia", "rocm"))]
    report = found.reports[HOST]
    assert report["ok"] is True, report["mismatches"]
    assert len(report["devices"]) == 16 and report["devices"][0]["neuron_cores"] == 8
    assert report["checks"]["matmul"]["error"] is None
    assert report["checks"]["matmul"]["devices"][0]["name"] == "NeuronCore 0"
    assert found.first is not None and found.first.view.hosts[HOST].outcomes["reboot"] == "rebooted"


def test_second_apply_changes_nothing(runs):
    mixed.assert_second_apply_changes_nothing(runs[0], HOST)


def test_check_mode_reports_the_next_release_and_writes_nothing(runs):
    check = mixed.checked(runs, HOST)
    assert "aws-neuronx-dkms=2.25.4.0" in check["progress"], check["progress"]
    _release_installed(check["after"][HOST].installed)


def test_validate_names_the_drift_of_a_neuron_node(runs):
    report = mixed.drifted(runs, HOST)
    mismatches = report["mismatches"]
    assert "aws-neuronx-collectives: aws-neuronx-collectives is not held" in mismatches, mismatches
    assert "aws-neuronx-dkms: aws-neuronx-dkms is not pinned to 2.24.7.0 (pin: none)" in mismatches, mismatches
    # With its pin file gone and its hold released, nothing declares the package any more: the
    # managed family (roles/package_families) names it as a leftover too.
    assert any(
        m.startswith("aws_neuron: aws-neuronx-collectives 2.28.27.0-17a033bc8 is installed, unpinned")
        for m in mismatches
    )
    assert [m for m in mismatches if not m.startswith(("aws-neuronx-", "aws_neuron:"))] == [], mismatches
    assert report["checks"]["devices"] == []


def test_failed_canary_rolls_back_to_the_validated_release(runs):
    message, upgrade = mixed.rolled_back(runs, HOST, PROFILE)
    assert "neuron-ls failed (rc 1)" in message, upgrade["out"]
    state = upgrade["after"][HOST]
    _release_installed(state.installed)
    assert state.files["venv"] == "torch-2.8.0-cpu"
    pip = {p["name"]: p["version"] for p in json.loads(state.files["pip"] or "[]")}
    assert pip["torch-neuronx"] == RELEASE["torch_neuronx"]
