"""A stack's `bare_metal` section as an Ansible inventory.

The inventory is the only way versions reach the roles: each host group gets its software
profile's pinned versions (`accelplane_profile`), never a copy typed elsewhere, and the version
matrix's verdict on that profile (`accelplane_matrix`), which the first play of every playbook
asserts before any node is touched.

Groups: `accelerator_nodes` holds one child group per host group (name with `-` turned into `_`,
Ansible's rule for group names). Variables are set on the host groups; rollout settings on `all`.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from accelplane.config.loader import StackConfig
from accelplane.declaration.bare_metal import BareMetal, Connection, ConnectionKind, HostGroup, HostKeyChecking
from accelplane.errors import InputError
from accelplane.matrix import accelerators, check, load
from accelplane.matrix.schema import Vendor
from accelplane.nodes.air_gap import node_sources

ROOT_GROUP = "accelerator_nodes"
CHROOT_CONNECTION = "accelplane_chroot"
DEFAULT_EFA_INSTALLER_URL = "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz"

_CONNECTIONS = {
    ConnectionKind.ssh: "ssh",
    ConnectionKind.chroot: CHROOT_CONNECTION,
    ConnectionKind.local: "local",
}


@dataclass
class NodeInventory:
    """Plain data: group -> hosts, children and variables; host -> variables."""

    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    hosts: dict[str, dict[str, Any]] = field(default_factory=dict)


def ansible_group_name(name: str) -> str:
    return name.replace("-", "_")


def bare_metal_of(stack: StackConfig) -> BareMetal:
    bare_metal = stack.platform.bare_metal
    if bare_metal is None:
        raise InputError.single(
            f"stack {stack.stack!r} declares no bare-metal hosts (add `bare_metal:` under accelplane:platform)",
            file=str(stack.path),
            field="accelplane:platform.bare_metal",
        )
    return bare_metal


def build_inventory(stack: StackConfig) -> NodeInventory:
    """Groups, hosts and variables for `stack`; raises `InputError` without a bare_metal section."""

    bare_metal = bare_metal_of(stack)
    known = accelerators()
    inventory = NodeInventory()
    rollout = bare_metal.rollout
    inventory.groups["all"] = {
        "vars": {
            "accelplane_stack": stack.stack,
            "accelplane_rollout": {
                "serial": [rollout.canary, rollout.batch_size],
                "drain": rollout.drain,
                "uncordon": rollout.uncordon,
                "reboot": rollout.reboot,
                "reboot_timeout": rollout.reboot_timeout,
                "reboot_command": rollout.reboot_command,
                "boot_id_command": rollout.boot_id_command,
            },
        }
    }
    inventory.groups[ROOT_GROUP] = {"children": [], "vars": {}}
    for index, group in enumerate(bare_metal.groups):
        name = ansible_group_name(group.name)
        inventory.groups[ROOT_GROUP]["children"].append(name)
        facts = known[group.accelerator]
        inventory.groups[name] = {
            "hosts": [host.name for host in group.hosts],
            "vars": _group_vars(stack, bare_metal, group, index, facts),
        }
        for host in group.hosts:
            inventory.hosts[host.name] = {"ansible_host": host.address or host.name}
    return inventory


def _group_vars(stack: StackConfig, bare_metal: BareMetal, group: HostGroup, index: int, facts: Any) -> dict[str, Any]:
    profile = stack.platform.software_profiles[group.software_profile]
    connection = group.connection
    variables: dict[str, Any] = {
        "accelplane_group": group.name,
        "accelplane_accelerator": group.accelerator,
        "accelplane_vendor": facts.vendor.value,
        "accelplane_nvswitch": facts.nvswitch,
        "accelplane_devices": group.validation.devices or facts.gpus_per_node,
        "accelplane_device_names": list(facts.product_names),
        "accelplane_efa": group.efa,
        "accelplane_profile_name": group.software_profile,
        "accelplane_profile": profile.versions(),
        "accelplane_matrix": matrix_verdict(stack, bare_metal, group, index),
        "accelplane_repositories": [repo.model_dump(mode="json") for repo in bare_metal.repositories],
        # Air-gapped: the mirror's repository, index and installers replace the declared (upstream)
        # sources, which only `bundle lock` reads (accelplane.nodes.air_gap).
        **node_sources(stack.platform.air_gap.model_dump(mode="json") if stack.platform.air_gap else None,
                       bare_metal.python.model_dump()),
        "accelplane_validation": group.validation.model_dump(mode="json"),
        "ansible_connection": _CONNECTIONS[connection.kind],
        "ansible_become": connection.become,
    }
    if facts.vendor is Vendor.NEURON:
        # aws-neuronx-dkms of every Neuron SDK release: the matrix's fact, not typed a second time. All
        # of them, not only the profile's: a rollback installs the node's last validated profile.
        variables["accelplane_neuron_drivers"] = neuron_drivers()
    if facts.vendor.value == "nvidia":
        # nccl-tests source tarballs with their SHA-256, by release: the matrix's facts (comms.yaml), so a
        # rollback to an older profile finds its release too (roles/nccl_tests).
        variables["accelplane_nccl_tests_releases"] = nccl_tests_releases()
    if facts.vendor.value == "huawei":
        # The chip name in Huawei's installer file names (Ascend-hdk-910b-npu-driver_...): the matrix's
        # ascend_chip of the accelerator (accelerators.yaml), for roles/ascend_npu.
        variables["accelplane_ascend_chip"] = facts.ascend_chip or ""
    if connection.kind is ConnectionKind.ssh:
        variables["ansible_port"] = connection.port
        if connection.user:
            variables["ansible_user"] = connection.user
        if connection.private_key_file:
            variables["ansible_ssh_private_key_file"] = connection.private_key_file
        variables.update(ssh_variables(connection))
    if connection.kind is not ConnectionKind.ssh:
        # The node's own Python; discovery would cost one round trip per host for the same answer.
        variables["ansible_python_interpreter"] = "/usr/bin/python3"
    return variables


def ssh_variables(connection: Connection) -> dict[str, Any]:
    """Known-hosts file, host-key checking, jump host and extra arguments as Ansible's ssh variables."""
    variables: dict[str, Any] = {}
    checking = _checking_options(connection)
    common = [*checking]
    if connection.jump_host:
        common += ["-o", f"ProxyCommand={_proxy_command(connection, checking)}"]
    common += connection.common_args
    if common:
        variables["ansible_ssh_common_args"] = shlex.join(common)
    if connection.extra_args:
        variables["ansible_ssh_extra_args"] = shlex.join(connection.extra_args)
    if connection.host_key_checking is not None:
        # Ansible adds its own `-o StrictHostKeyChecking=no` ahead of these arguments when its
        # host_key_checking is off, and ssh keeps the first value it reads: the declaration wins
        # only if Ansible's setting agrees with it.
        variables["ansible_host_key_checking"] = connection.host_key_checking is not HostKeyChecking.no
    return variables


def _checking_options(connection: Connection) -> list[str]:
    options = []
    if connection.known_hosts_file:
        options += ["-o", f"UserKnownHostsFile={connection.known_hosts_file}"]
    if connection.host_key_checking is not None:
        options += ["-o", f"StrictHostKeyChecking={connection.host_key_checking.value}"]
    return options


def _proxy_command(connection: Connection, checking: list[str]) -> str:
    """`ssh -W %h:%p` through the jump host, with the hosts' known-hosts file, checking and key.

    Not `-o ProxyJump`: ssh starts the jump hop with only -l, -p and -F of its own command line,
    so the hop would be checked against ~/.ssh/known_hosts with the user's defaults instead of
    the declared file, and would not use the declared key."""
    jump = connection.jump_host or ""
    user, _, hostport = jump.rpartition("@")
    host, port = hostport, None
    if hostport.startswith("["):
        host, _, rest = hostport[1:].partition("]")
        port = rest.removeprefix(":") or None
    elif hostport.count(":") == 1:
        host, port = hostport.split(":")
    argv = ["ssh", "-W", "%h:%p", *checking]
    if connection.private_key_file:
        argv += ["-i", connection.private_key_file]
    if user:
        argv += ["-l", user]
    if port:
        argv += ["-p", port]
    argv.append(host)
    # ssh expands %-tokens in ProxyCommand and runs it with the shell: escape the declared words.
    words = [argv[0], argv[1], argv[2], *(shlex.quote(word.replace("%", "%%")) for word in argv[3:])]
    return " ".join(words)


def neuron_drivers() -> dict[str, str]:
    """Neuron SDK release -> its aws-neuronx-dkms version, from the matrix (neuron.yaml `driver`).
    A release the matrix does not know, or without a driver, is missing: roles/aws_neuron's
    preflight then stops, saying so."""

    return {release.sdk: release.driver for release in load().neuron.releases if release.driver}


def nccl_tests_releases() -> dict[str, dict[str, str]]:
    """nccl-tests release -> {url, sha256} of its source tarball, from the matrix (comms.yaml)."""
    return {release.version: {"url": release.url, "sha256": release.sha256} for release in load().comms.nccl_tests}


def matrix_verdict(stack: StackConfig, bare_metal: BareMetal, group: HostGroup, index: int) -> dict[str, Any]:
    """The matrix's judgement of the group's profile on its accelerator, as inventory data."""

    profile = stack.platform.software_profiles[group.software_profile]
    origin = f"{stack.path}: software_profiles.{group.software_profile} (bare_metal.groups[{index}])"
    report = check(profile.matrix_stack(group.accelerator), strict=bare_metal.strict_matrix, origin=origin)
    return {
        "verdict": report.verdict.value,
        "strict": bare_metal.strict_matrix,
        "blocking": report.blocking,
        "findings": [finding.to_json() for finding in report.problems()],
    }
