"""site.yml and validate.yml on lab nodes: pinned, held, idempotent, check mode, refusals, drift.

Lab nodes are overlay copies of a debootstrap'd Debian root reached with the chroot connection;
packages come from a local `file:` apt repository of stand-ins built with dpkg-deb in several
versions. No GPU here: nvidia-smi, rocm-smi, dkms, all_reduce_perf and torch are stand-ins that
print the real tools' formats for simulated GPUs (tests/support/ansible/standins).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.support.ansible import lab

H100_PINNED = {
    "nvidia-driver-cuda": "570.172.08-1",
    "nvidia-kernel-open-dkms": "570.172.08-1",
    "nvidia-smi": "570.172.08-1",
    "libcuda1": "570.172.08-1",
    "nvidia-persistenced": "570.172.08-1",
    "nvidia-fabricmanager-570": "570.172.08-1",
    "libnvidia-nscq-570": "570.172.08-1",
    "containerd.io": "1.7.27-1",
    "nvidia-container-toolkit": "1.17.8-1",
    "libnvidia-container1": "1.17.8-1",
    "libnccl2": "2.27.3-1+cuda12.8",
    "libnccl-dev": "2.27.3-1+cuda12.8",
}


def tree_digest(root: Path, skip: tuple[str, ...] = ("tmp", "root/.ansible", "var/cache/apt", "var/log")) -> str:
    """Digest of every path, mode and content a run wrote (the upper layer), apt's logs aside."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if any(relative == s or relative.startswith(s + "/") for s in skip):
            continue
        stat = path.lstat()
        digest.update(f"{relative} {stat.st_mode:o}\n".encode())
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_site_installs_the_profile_versions_pinned_and_held(applied, make_node):
    node = make_node("h100-01", snapshot=applied.h100)
    installed = node.installed()
    for package, version in H100_PINNED.items():
        assert installed[package] == (version, "hi"), f"{package}: {installed.get(package)}"
    pins = node.path("etc/apt/preferences.d/accelplane-nvidia_driver.pref").read_text()
    assert "Pin: version 570.172.08-*\nPin-Priority: 1000" in pins
    assert "nvidia-kernel-open-dkms" in pins and "nvidia-kernel-dkms" not in pins
    assert (
        "Pin: version 2.27.3-*+cuda12.8" in node.path("etc/apt/preferences.d/accelplane-comms_stack.pref").read_text()
    )
    # DKMS built the module for the running kernel; nouveau is off; the runtime defaults to nvidia.
    assert f"nvidia/570.172.08, {os.uname().release}, x86_64: installed" in node.run("dkms", "status").stdout
    assert "blacklist nouveau" in node.path("etc/modprobe.d/blacklist-nouveau.conf").read_text()
    assert 'default_runtime_name = "nvidia"' in node.path("etc/containerd/config.toml").read_text()
    assert node.path("etc/systemd/system/multi-user.target.wants/nvidia-persistenced.service").is_symlink()
    # EFA installer and the aws-ofi-nccl it ships; the framework's exact build imports.
    assert "# EFA installer version: 1.43.2" in node.path("opt/amazon/efa_installed_packages").read_text()
    assert installed["libnccl-ofi"][0] == "1.16.3-1"
    torch = node.run(
        "/opt/accelplane/venv/bin/python", "-c", "import torch; print(torch.__version__, torch.version.cuda)"
    )
    assert torch.stdout.split() == ["2.8.0+cu128", "12.8"]
    state = json.loads(node.path("etc/ansible/facts.d/accelplane.fact").read_text())
    assert state["profile"] == "h100-r570" and state["versions"]["driver"] == "570.172.08"


def test_site_reboots_once_for_the_new_driver_and_validates(applied):
    host = applied.result.view.hosts["h100-01"]
    assert host.outcomes["reboot"] == "rebooted"
    report = applied.h100_report
    assert report["ok"] is True and report["mismatches"] == []
    assert len(report["devices"]) == 8 and {d["driver_version"] for d in report["devices"]} == {"570.172.08"}
    assert report["devices"][0]["name"] == "NVIDIA H100 80GB HBM3"
    assert len(report["checks"]["matmul"]["devices"]) == 8
    assert report["checks"]["nccl_tests"]["avg_bus_bandwidth_gbps"] == 356.42


def test_site_installs_amdgpu_and_rocm_on_amd_hosts(applied, make_node):
    node = make_node("mi300x-01", vendor="amd", snapshot=applied.mi300x)
    installed = node.installed()
    assert installed["amdgpu-dkms"] == ("1:6.12.12.60401-1", "hi")
    assert installed["rocm-core"] == ("6.4.1.60401-1", "hi")
    assert installed["rocm-smi-lib"] == ("7.5.0.60401-1", "hi")
    assert installed["rccl"] == ("2.22.3.60401-1", "hi")
    assert "nvidia-driver-cuda" not in installed and "nvidia-container-toolkit" not in installed
    assert 'default_runtime_name = "runc"' in node.path("etc/containerd/config.toml").read_text()
    report = applied.mi300x_report
    assert report["ok"] is True, report["mismatches"]
    assert len(report["devices"]) == 8 and report["devices"][0]["gfx_target"] == "gfx942"


def test_second_run_changes_nothing(applied, make_node, tmp_path):
    node = make_node("h100-01", snapshot=applied.h100)
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]})
    result = lab.run("site.yml", stack, tmp_path)
    assert result.rc == 0, lab.failure(result)
    host = result.view.hosts["h100-01"]
    assert host.changed == 0, lab.failure(result)
    assert host.outcomes["reboot"] == "not_needed"


def test_check_mode_changes_nothing(applied, make_node, tmp_path):
    node = make_node("h100-01", snapshot=applied.h100)
    before = tree_digest(node.upper)
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]}, profiles={"h100-train": "h100-r580"})
    result = lab.run("site.yml", stack, tmp_path, check=True)
    assert result.rc == 0, lab.failure(result)
    assert result.view.hosts["h100-01"].changed > 0  # it shows what the next profile would change
    assert tree_digest(node.upper) == before
    assert node.installed()["nvidia-driver-cuda"] == ("570.172.08-1", "hi")


def site_on_a_changed_profile(make_node, tmp_path, **change: str):
    """site.yml on a fresh node whose group runs h100-r570 with `change`; the node's upper layer
    digest from before the run, the run's result and the node's failure message."""
    node = make_node("h100-01")
    before = tree_digest(node.upper)
    changed = dict(lab.platform_of(lab.lab_document())["software_profiles"]["h100-r570"], **change)
    stack = lab.write_stack(
        tmp_path,
        {"h100-train": [("h100-01", node.root)]},
        extra_profiles={"h100-changed": changed},
        profiles={"h100-train": "h100-changed"},
    )
    result = lab.run("site.yml", stack, tmp_path)
    assert result.rc != 0
    return node, before, result.view.hosts["h100-01"].message


def test_unavailable_version_fails_before_anything_is_written(make_node, tmp_path):
    node, before, message = site_on_a_changed_profile(
        make_node, tmp_path, driver="570.195.03", fabric_manager="570.195.03"
    )
    assert "nvidia-driver: nvidia-driver-cuda" in message and "not offered at version 570.195.03-*" in message, message
    assert "570.172.08-1" in message  # says what the repository has instead
    assert "nothing was changed" in message
    assert tree_digest(node.upper) == before
    assert not node.path("etc/apt/preferences.d").exists() or not list(node.path("etc/apt/preferences.d").iterdir())
    assert not node.path("etc/apt/sources.list.d/accelplane.sources").exists()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # The EFA installer is a tarball fetched by the node, not an apt package.
        (
            {"efa_installer": "1.44.0"},
            "comms: EFA installer 1.44.0 not found at file:///srv/accelplane-lab/efa/aws-efa-installer-1.44.0.tar.gz",
        ),
        # The framework comes from a wheel directory: a build it does not carry.
        ({"torch": "2.8.1"}, "framework: no wheel of torch 2.8.1+cu128 for Python 3.11 on x86_64"),
    ],
    ids=["efa-installer", "framework-wheel"],
)
def test_missing_installer_or_wheel_fails_before_anything_is_written(make_node, tmp_path, change, expected):
    node, before, message = site_on_a_changed_profile(make_node, tmp_path, **change)
    assert expected in message and "nothing was changed" in message, message
    assert tree_digest(node.upper) == before


def test_fabric_manager_other_than_the_driver_is_refused_before_any_node_is_touched(make_node, tmp_path):
    node, before, message = site_on_a_changed_profile(make_node, tmp_path, fabric_manager="570.172.09")
    assert "is incompatible" in message and "Fabric Manager 570.172.09 differs from driver 570.172.08" in message
    assert "no node was touched" in message
    assert tree_digest(node.upper) == before


def test_validate_names_every_drift_and_fails(applied, make_node, tmp_path):
    """Drift in holds and pins, a driver that does not answer (nvidia-smi's real failure text) and
    a failing DCGM diagnostic."""
    node = make_node("h100-01", snapshot=applied.h100)
    hardware = json.loads(node.path("etc/lab/hardware.json").read_text())
    node.path("etc/lab/hardware.json").write_text(json.dumps({**hardware, "dcgm_failures": ["Inforom"]}))
    node.run("apt-mark", "unhold", "libnccl2")
    node.path("etc/apt/preferences.d/accelplane-container_runtime.pref").unlink()
    node.path("usr/bin/nvidia-smi").write_text(
        "#!/bin/sh\necho \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"\nexit 9\n"
    )
    stack = lab.write_stack(
        tmp_path,
        {"h100-train": [("h100-01", node.root)]},
        group_settings={"h100-train": {"validation": {"matmul_size": 8, "dcgm_diag_level": 1}}},
    )
    result = lab.run("validate.yml", stack, tmp_path)
    assert result.rc != 0
    report = json.loads((result.report_dir / "h100-01.json").read_text())
    assert report["ok"] is False
    assert report["checks"]["dcgm_diag"] == {"rc": 226, "failed_tests": ["Inforom"]}
    assert "dcgm diag level 1 failed: Inforom" in report["mismatches"]
    mismatches = report["mismatches"]
    assert "nccl: libnccl2 is not held" in mismatches
    # The removed pin file held both runtime sets.
    assert "containerd: containerd.io is not pinned to 1.7.27-* (pin: none)" in mismatches
    assert "nvidia-container-toolkit: libnvidia-container1 is not pinned to 1.17.8-* (pin: none)" in mismatches
    assert any(m.startswith("nvidia-smi failed (rc 9): NVIDIA-SMI has failed") for m in mismatches), mismatches
    assert report["checks"]["matmul"]["error"] is None  # the framework still ran on every device
    # Nothing else differs: the report names exactly the drift.
    expected = ("nccl:", "containerd:", "nvidia-container-toolkit:", "nvidia-smi", "dcgm")
    assert [m for m in mismatches if not m.startswith(expected)] == [], mismatches


def test_validate_fails_a_node_holding_another_gpu_model(applied, make_node, tmp_path):
    """The h100-train group's node answers nvidia-smi as the real H200 node did ("NVIDIA H200", the
    driver the profile pins): count, driver and persistence match, the model does not, and validation
    names both the device and the declared accelerator."""
    node = make_node("h100-01", snapshot=applied.h100)
    hardware = json.loads(node.path("etc/lab/hardware.json").read_text())
    hardware["gpus"] = [{**gpu, "name": "NVIDIA H200"} for gpu in hardware["gpus"]]
    node.path("etc/lab/hardware.json").write_text(json.dumps(hardware))
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]},
                            group_settings={"h100-train": {"validation": {"matmul_size": 8}}})
    result = lab.run("validate.yml", stack, tmp_path)
    assert result.rc != 0
    report = json.loads((result.report_dir / "h100-01.json").read_text())
    wrong = [m for m in report["mismatches"] if "is NVIDIA H200" in m]
    assert len(wrong) == 8
    assert wrong[0] == "GPU 0 is NVIDIA H200, but the group is declared nvidia-hgx-h100-8gpu (NVIDIA H100 80GB HBM3)"
