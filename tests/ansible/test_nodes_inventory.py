"""The stack's bare_metal section: the model's checks, and the inventory plain Ansible reads.

Versions reach the roles only through the inventory, from the stack's software profile: these
tests fail when a copy drifts (docs/design.md "one version declaration").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from accelplane.config.loader import load_stack, load_stack_text
from accelplane.errors import InputError
from accelplane.nodes.inventory import build_inventory
from tests.support.ansible import lab

ROOT = Path(__file__).resolve().parents[2]


def ansible_inventory(source: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [str(Path(sys.executable).parent / "ansible-inventory"), "-i", str(source), "--list"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def plain(value):
    """ansible-inventory marks plugin values unsafe (never templated): unwrap them for comparison."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def test_plain_ansible_reads_the_stack_file_as_inventory():
    result = ansible_inventory(ROOT / "stacks" / "Pulumi.lab.yaml")
    assert result.returncode == 0, result.stderr
    data = plain(json.loads(result.stdout))
    assert data["accelerator_nodes"]["children"] == ["h100_train", "mi300x_infer"]
    assert data["h100_train"]["hosts"] == ["h100-01", "h100-02"]
    host = data["_meta"]["hostvars"]["h100-01"]
    profile = load_stack("lab").platform.software_profiles["h100-r570"]
    assert host["accelplane_profile"] == profile.versions()  # the one declaration, not a copy
    assert host["accelplane_profile_name"] == "h100-r570"
    assert host["accelplane_nvswitch"] is True and host["accelplane_devices"] == 8
    assert host["accelplane_matrix"]["verdict"] == "compatible"
    assert host["ansible_connection"] == "accelplane_chroot"
    assert host["ansible_host"] == "/var/lib/accelplane-lab/nodes/h100-01"
    assert data["_meta"]["hostvars"]["mi300x-01"]["accelplane_vendor"] == "amd"


def test_roles_take_no_version_from_anywhere_but_the_profile():
    """No role default, task or playbook names a version (comments with format examples aside):
    they come from node_software's profile mapping."""
    lab_versions = {
        v
        for p in load_stack("lab").platform.software_profiles.values()
        for v in p.versions().values()
        if any(c.isdigit() for c in v) and "." in v
    }
    for path in [
        *ROOT.glob("roles/*/defaults/main.yml"),
        *ROOT.glob("roles/*/tasks/*.yml"),
        *ROOT.glob("playbooks/*.yml"),
    ]:
        text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        for version in lab_versions:
            assert version not in text, f"{path.relative_to(ROOT)} names version {version}"


def test_a_broken_stack_fails_the_inventory_with_file_and_line(tmp_path):
    document = lab.lab_document()
    lab.platform_of(document)["bare_metal"]["groups"][0]["software_profile"] = "nope"
    path = tmp_path / "Pulumi.broken.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    result = ansible_inventory(path)
    assert result.returncode != 0
    assert f"{path}:" in result.stderr and "no software profile 'nope'" in result.stderr


def _with_bare_metal(change) -> str:
    document = lab.lab_document()
    change(lab.platform_of(document)["bare_metal"], lab.platform_of(document))
    return yaml.safe_dump(document, sort_keys=False)


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (
            lambda bm, p: bm["groups"][0].update(accelerator="nvidia-h999"),
            "bare_metal.groups[0].accelerator",
            "unknown accelerator 'nvidia-h999'",
        ),
        (
            lambda bm, p: bm["groups"][0].update(accelerator="google-tpu-v5e"),
            "bare_metal.groups[0].accelerator",
            "support NVIDIA and AMD accelerators",
        ),
        (
            lambda bm, p: p["software_profiles"]["h100-r570"].pop("fabric_manager"),
            "bare_metal.groups[0].software_profile",
            "lacks fabric_manager",
        ),
        (
            lambda bm, p: p["software_profiles"]["h100-r570"].pop("aws_ofi_nccl"),
            "bare_metal.groups[0].software_profile",
            "lacks aws_ofi_nccl",
        ),
        (
            lambda bm, p: bm["groups"][1]["hosts"].append({"name": "h100-01"}),
            "bare_metal.groups[1].hosts[1].name",
            "also in group 'h100-train'",
        ),
        (
            lambda bm, p: bm["repositories"][0].update(uri="https://example.invalid/repo"),
            "bare_metal.repositories[0]",
            "trusted: true is allowed only for local file: repositories",
        ),
        (
            lambda bm, p: bm["groups"][0].update(connection={"kind": "chroot", "user": "ubuntu"}),
            "bare_metal.groups[0].connection",
            "apply only to kind: ssh",
        ),
    ],
)
def test_bare_metal_mistakes_are_named_with_file_line_and_field(change, field, message):
    with pytest.raises(InputError) as error:
        load_stack_text(_with_bare_metal(change), path="Pulumi.bad.yaml")
    text = str(error.value)
    assert f"accelplane:platform.{field}" in text and message in text, text
    assert "Pulumi.bad.yaml:" in text


def test_a_stack_without_bare_metal_hosts_is_refused():
    with pytest.raises(InputError, match="declares no bare-metal hosts"):
        build_inventory(load_stack("dev"))


def test_strict_matrix_refuses_conditional_profiles(tmp_path):
    def strict(bm, platform):
        bm["strict_matrix"] = True

    stack = load_stack_text(_with_bare_metal(strict), path=str(tmp_path / "Pulumi.strict.yaml"), stack="strict")
    inventory = build_inventory(stack)
    for name in ("h100_train", "mi300x_infer"):
        matrix = inventory.groups[name]["vars"]["accelplane_matrix"]
        assert matrix["strict"] is True
        # Strict turns every "not in the matrix" finding into a blocking one.
        assert matrix["blocking"] == any(f["verdict"] == "incompatible" for f in matrix["findings"])
