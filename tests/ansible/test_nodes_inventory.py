"""The stack's bare_metal section: the model's checks, and the inventory plain Ansible reads.

Versions reach the roles only through the inventory, from the stack's software profile: these
tests fail when a copy drifts (docs/design.md "one version declaration").
"""

from __future__ import annotations

import json
import os
import shlex
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
            "accelerators, not google-tpu-v5e (google)",
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


# Connection settings (issue 15): ssh options per group and stack-wide, never a secret.

_ED25519_BLOB = "AAAAC3NzaC1lZDI1NTE5AAAAIGq3" + "Zm9yLXRlc3RzLW9ubHktbm90LWEtcmVhbC1rZXk" + "x"
_PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"


def _ssh_stack(change) -> dict:
    """The lab stack with h100-train over ssh; `change(bare_metal)` adds the settings under test."""

    def edit(bm, platform):
        bm["groups"][0]["connection"] = {"kind": "ssh", "user": "root", "private_key_file": "~/.ssh/lab_ed25519"}
        change(bm)

    return _with_bare_metal(edit)


def test_connection_settings_become_the_groups_ssh_variables(tmp_path):
    def settings(bm):
        bm["groups"][0]["connection"].update(
            known_hosts_file="/etc/accelplane/known_hosts",
            host_key_checking="yes",
            jump_host="ops@bastion.example:2222",
            common_args=["-o", "ServerAliveInterval=30"],
            extra_args=["-o", "ConnectTimeout=10"],
        )

    inventory = build_inventory(load_stack_text(_ssh_stack(settings), path=str(tmp_path / "Pulumi.ssh.yaml")))
    ssh = inventory.groups["h100_train"]["vars"]
    common = shlex.split(ssh["ansible_ssh_common_args"])
    assert common[:4] == ["-o", "UserKnownHostsFile=/etc/accelplane/known_hosts", "-o", "StrictHostKeyChecking=yes"]
    assert common[-2:] == ["-o", "ServerAliveInterval=30"]
    proxy = common[5].removeprefix("ProxyCommand=")
    assert common[4] == "-o" and common[5].startswith("ProxyCommand=")
    # The jump hop is checked against the same file with the same key (ProxyJump would not be).
    assert shlex.split(proxy) == [
        "ssh", "-W", "%h:%p",
        "-o", "UserKnownHostsFile=/etc/accelplane/known_hosts", "-o", "StrictHostKeyChecking=yes",
        "-i", "~/.ssh/lab_ed25519", "-l", "ops", "-p", "2222", "bastion.example",
    ]  # fmt: skip
    assert shlex.split(ssh["ansible_ssh_extra_args"]) == ["-o", "ConnectTimeout=10"]
    assert ssh["ansible_host_key_checking"] is True
    assert ssh["ansible_ssh_private_key_file"] == "~/.ssh/lab_ed25519"
    # Per group: the chroot group gets none of it.
    chroot = inventory.groups["mi300x_infer"]["vars"]
    assert not {key for key in chroot if key.startswith(("ansible_ssh_", "ansible_host_key"))}


def test_a_stack_wide_connection_is_the_default_of_ssh_groups_and_a_groups_keys_win(tmp_path):
    def settings(bm):
        bm["connection"] = {"known_hosts_file": "/etc/ssh/fleet_known_hosts", "host_key_checking": "yes"}
        bm["groups"][0]["connection"]["host_key_checking"] = "accept-new"

    inventory = build_inventory(load_stack_text(_ssh_stack(settings), path=str(tmp_path / "Pulumi.ssh.yaml")))
    ssh = inventory.groups["h100_train"]["vars"]
    assert shlex.split(ssh["ansible_ssh_common_args"]) == [
        "-o", "UserKnownHostsFile=/etc/ssh/fleet_known_hosts", "-o", "StrictHostKeyChecking=accept-new",
    ]  # fmt: skip
    assert "ansible_ssh_common_args" not in inventory.groups["mi300x_infer"]["vars"]  # chroot: not inherited


def test_host_key_checking_off_is_passed_to_ansible_too(tmp_path):
    def settings(bm):
        bm["groups"][0]["connection"]["host_key_checking"] = "no"

    inventory = build_inventory(load_stack_text(_ssh_stack(settings), path=str(tmp_path / "Pulumi.ssh.yaml")))
    assert inventory.groups["h100_train"]["vars"]["ansible_host_key_checking"] is False


def test_plain_ansible_sees_the_connection_settings(tmp_path):
    def settings(bm):
        bm["groups"][0]["connection"].update(known_hosts_file="/k", host_key_checking="yes", jump_host="bastion")

    path = tmp_path / "Pulumi.ssh.yaml"
    path.write_text(_ssh_stack(settings))
    result = ansible_inventory(path)
    assert result.returncode == 0, result.stderr
    host = plain(json.loads(result.stdout))["_meta"]["hostvars"]["h100-01"]
    assert "-o StrictHostKeyChecking=yes" in host["ansible_ssh_common_args"]
    assert "ProxyCommand=ssh -W %h:%p" in host["ansible_ssh_common_args"]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (
            lambda bm: bm["groups"][0]["connection"].update(private_key_file=_PEM),
            "bare_metal.groups[0].connection.private_key_file",
            "inline key material",
        ),
        (
            lambda bm: bm["groups"][0]["connection"].update(
                common_args=["-o", f"IdentityFile=ssh-ed25519 {_ED25519_BLOB}"]
            ),
            "bare_metal.groups[0].connection.common_args[1]",
            "looks like key material or a password",
        ),
        (
            lambda bm: bm["groups"][0]["connection"].update(extra_args=[_ED25519_BLOB]),
            "bare_metal.groups[0].connection.extra_args[0]",
            "secrets never go in the stack file",
        ),
        (
            lambda bm: bm["groups"][0]["connection"].update(extra_args=["-o", "ProxyCommand=sshpass -p hunter2 ssh b"]),
            "bare_metal.groups[0].connection.extra_args[1]",
            "secrets never go in the stack file",
        ),
        (
            lambda bm: bm["groups"][0]["connection"].update(password="hunter2"),
            "bare_metal.groups[0].connection",
            "password: secrets never go in the stack file",
        ),
        (
            lambda bm: bm.update(connection={"private_key_file": _PEM}),
            "bare_metal.connection.private_key_file",
            "inline key material",
        ),
        (
            lambda bm: bm["groups"][0]["connection"].update(jump_host="ops@bastion example"),
            "bare_metal.groups[0].connection.jump_host",
            "should match pattern",
        ),
        (
            lambda bm: bm["groups"][0]["connection"].update(known_hosts_file="/a /b"),
            "bare_metal.groups[0].connection.known_hosts_file",
            "should match pattern",
        ),
        (
            lambda bm: bm["groups"][0]["connection"].update(host_key_checking="ask"),
            "bare_metal.groups[0].connection.host_key_checking",
            "'yes', 'accept-new' or 'no'",
        ),
        (
            lambda bm: bm["groups"][1].update(connection={"kind": "chroot", "jump_host": "bastion"}),
            "bare_metal.groups[1].connection",
            "jump_host apply only to kind: ssh",
        ),
    ],
)
def test_bad_connection_settings_are_refused_with_file_line_and_field(change, field, message):
    with pytest.raises(InputError) as error:
        load_stack_text(_ssh_stack(change), path="Pulumi.bad.yaml")
    text = str(error.value)
    assert f"accelplane:platform.{field}: " in text and message in text, text
    assert "Pulumi.bad.yaml:" in text
    assert "hunter2" not in text and _ED25519_BLOB not in text, "the refusal must not echo the secret"


def test_key_material_in_the_stack_file_exits_2_naming_its_line(tmp_path, capsys):
    from accelplane.cli import main

    def inline_key(bm):
        bm["groups"][0]["connection"]["private_key_file"] = _PEM

    path = tmp_path / "Pulumi.leak.yaml"
    path.write_text(_ssh_stack(inline_key))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "private_key_file" in text)
    assert main(["nodes", "apply", "--stack-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line}: accelplane:platform.bare_metal.groups[0].connection.private_key_file: " in err, err
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in err
