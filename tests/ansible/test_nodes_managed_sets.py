"""Nothing left behind: installed packages of a managed family that no pinned set declares (the
old branch's packages after a move, the new set's after a rollback, one installed by hand) are
drift for validate, and apply and rollback remove them (roles/package_families; the rollback's
prune is tested by the failed upgrade in test_nodes_upgrade.py).

The lab's cuda-compat-13-0 is such a package: NVIDIA's forward-compatibility libcuda, which no
lab profile declares (tests/support/ansible/catalog.py CUDA_COMPAT).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.support.ansible import lab
from tests.support.ansible.catalog import CUDA_COMPAT

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "roles/package_families/library"))
import package_leftovers  # noqa: E402


def families() -> dict[str, list[str]]:
    import yaml

    return yaml.safe_load((ROOT / "roles/package_families/defaults/main.yml").read_text())["package_families_managed"]


def installed(*rows: tuple[str, str, str, str]) -> dict[str, dict[str, str]]:
    """(package, version, Depends, Provides) rows as dpkg-query prints them, installed."""
    lines = [f"{name}\t{version}\tii \t{depends}\t\t{provides}" for name, version, depends, provides in rows]
    return package_leftovers.installed_packages(lines)


def test_leftovers_are_undeclared_family_members_no_declared_package_needs():
    node = installed(
        (
            "nvidia-driver-cuda",
            "570.172.08-1",
            "nvidia-kernel-support-570 (= 570.172.08-1), "
            "nvidia-kernel-open-dkms (= 570.172.08-1) | nvidia-kernel-dkms (= 570.172.08-1)",
            "",
        ),
        # A dependency the driver pulls in: a family member, but needed.
        ("nvidia-kernel-support-570", "570.172.08-1", "", ""),
        ("nvidia-kernel-open-dkms", "570.172.08-1", "dkms", ""),
        # What a failed upgrade to 580 with the other flavour left: the driver's alternative, at
        # a version that does not satisfy it.
        ("nvidia-kernel-dkms", "580.105.08-1", "dkms", ""),
        ("libnvidia-nscq-580", "580.95.05-1", "", "libnvidia-nscq"),
        ("cuda-compat-13-0", "580.95.05-1", "", ""),
        ("libnccl-ofi", "1.16.3-1", "", ""),  # the EFA installer's: no family of ours
        ("dkms", "3.0.10-8+deb12u1", "", ""),
    )
    declared = {"nvidia-driver-cuda", "nvidia-kernel-open-dkms"}
    leftovers = package_leftovers.find_leftovers(node, declared, families())
    assert leftovers == [
        {"package": "cuda-compat-13-0", "version": "580.95.05-1", "family": "nvidia_driver"},
        {"package": "libnvidia-nscq-580", "version": "580.95.05-1", "family": "nvidia_fabric_manager"},
        {"package": "nvidia-kernel-dkms", "version": "580.105.08-1", "family": "nvidia_driver"},
    ]
    assert package_leftovers.leftover_messages(leftovers[:1]) == [
        "nvidia_driver: cuda-compat-13-0 580.95.05-1 is installed, unpinned and unheld: no pinned set "
        "declares it (apt upgrades would move it; apply removes it)"
    ]
    # Declared by a pin file: not a leftover.
    pins = "Package: libnvidia-nscq-580 nvidia-fabricmanager-580\nPin: version 580.95.05-*\nPin-Priority: 1000\n"
    assert package_leftovers.declared_packages([pins]) == {"libnvidia-nscq-580", "nvidia-fabricmanager-580"}


def test_validate_reports_an_undeclared_family_package_and_apply_removes_it(applied, make_node, tmp_path):
    node = make_node("h100-01", snapshot=applied.h100)
    [(compat, version)] = CUDA_COMPAT.items()
    node.run("dpkg", "-i", f"/srv/accelplane-lab/apt/{compat}_{version}_all.deb")
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]})
    result = lab.run("validate.yml", stack, tmp_path)
    assert result.rc != 0
    report = json.loads((result.report_dir / "h100-01.json").read_text())
    assert report["mismatches"] == [
        f"nvidia_driver: {compat} {version} is installed, unpinned and unheld: no pinned set "
        "declares it (apt upgrades would move it; apply removes it)"
    ]
    result = lab.run("site.yml", stack, tmp_path)
    assert result.rc == 0, lab.failure(result)
    packages = node.installed()
    assert compat not in packages or packages[compat][1][1] != "i", packages.get(compat)
    assert packages["nvidia-driver-cuda"] == ("570.172.08-1", "hi")
    assert json.loads((result.report_dir / "h100-01.json").read_text())["ok"] is True


def test_a_versioned_provides_meets_a_versioned_dependency_and_an_unversioned_one_does_not():
    """Debian policy 7.5, the same on the node as in the bundle lock (one implementation)."""
    node = installed(
        ("nvidia-driver-cuda", "570.172.08-1", "libnvidia-nscq (>= 570)", ""),
        ("libnvidia-nscq-570", "570.172.08-1", "", "libnvidia-nscq (= 570.172.08)"),
        ("libnvidia-nscq-580", "580.95.05-1", "", "libnvidia-nscq"),
    )
    needed = package_leftovers.needed_by({"nvidia-driver-cuda"}, node)
    assert needed == {"nvidia-driver-cuda", "libnvidia-nscq-570"}
