"""The bare-metal section of a stack: accelerator hosts run with Ansible (`accelplane nodes`).

Host groups name their accelerator and a software profile declared under `software_profiles`; the
versions are never written here (docs/design.md "one version declaration"). The inventory plugin
(`plugins/inventory/accelplane_stack.py`) turns this section into Ansible groups and variables.
Cross-field rules (a group names an existing profile, the accelerator is known, the profile has
every version the group's roles install) live in `accelplane.config.cross_field_checks`.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

GroupName = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$"),
    Field(description="Lower-case DNS-style name: letters, digits and '-', 2-40 characters."),
]
HostName = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$"),
    Field(description="Inventory host name: lower-case letters, digits, '.' and '-'."),
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# What a secret pasted into the stack file looks like: PEM/OpenSSH/PuTTY private keys, an SSH key
# line or its base64 blob, sshpass. Stack files are committed, so a secret there is a leak; keys
# are named by path (or come from the agent) and passwords are never declared.
_KEY_MATERIAL = re.compile(
    r"-----BEGIN |PRIVATE KEY|PuTTY-User-Key-File|\bsshpass\b|\bansible_(ssh_|become_)?pass(word)?\b"
    r"|\b(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA"
    r"|AAAA[BCE][0-9A-Za-z+/]{40,}",
    re.IGNORECASE,
)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=]{64,}")
_SECRET_KEYS = re.compile(r"pass(word|phrase)?|secret|private_key$|key_data|token", re.IGNORECASE)


def _no_key_material(value: str) -> str:
    """Refuse a value that carries a secret instead of naming where it is."""
    if "\n" in value or "\r" in value:
        raise ValueError("a multi-line value looks like inline key material; name a key file by path or use an agent")
    # A long run mixing upper, lower case and digits is an encoded key, not a path or an option.
    encoded = any(
        re.search(r"[A-Z]", run) and re.search(r"[a-z]", run) and re.search(r"[0-9]", run)
        for run in _BASE64_RUN.findall(value)
    )
    if encoded or _KEY_MATERIAL.search(value):
        raise ValueError(
            "looks like key material or a password; secrets never go in the stack file: "
            "name a private key file by path, or use an SSH agent"
        )
    return value


SshText = Annotated[str, Field(min_length=1), AfterValidator(_no_key_material)]
# ssh reads several whitespace-separated files from one UserKnownHostsFile value.
PathText = Annotated[str, StringConstraints(pattern=r"^\S+$"), AfterValidator(_no_key_material)]
# [user@]host[:port], host a DNS name, an IPv4 address or a bracketed IPv6 address.
JumpHost = Annotated[
    str,
    StringConstraints(pattern=r"^([A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$"),
    Field(description="Jump (bastion) host as [user@]host[:port]."),
]


class ConnectionKind(StrEnum):
    """How Ansible reaches a host."""

    ssh = "ssh"
    # A node's root file system reached with chroot(8): image builds and lab nodes.
    chroot = "chroot"
    local = "local"


class HostKeyChecking(StrEnum):
    """OpenSSH's StrictHostKeyChecking."""

    yes = "yes"
    accept_new = "accept-new"
    no = "no"


class Connection(_Model):
    kind: ConnectionKind = Field(default=ConnectionKind.ssh, description="ssh, chroot (a root directory) or local.")
    user: SshText | None = Field(default=None, description="Remote user for ssh (default: Ansible's).")
    port: int = Field(default=22, ge=1, le=65535, description="SSH port.")
    private_key_file: SshText | None = Field(
        default=None, description="Path of the SSH private key on the controller (never the key itself)."
    )
    become: bool = Field(default=False, description="Escalate with sudo (for a non-root ssh user).")
    known_hosts_file: PathText | None = Field(
        default=None, description="Known-hosts file on the controller for the hosts and the jump host."
    )
    host_key_checking: HostKeyChecking | None = Field(
        default=None, description="StrictHostKeyChecking: yes, accept-new or no (default: Ansible's setting)."
    )
    jump_host: JumpHost | None = Field(
        default=None,
        description="Reach the hosts through this bastion ([user@]host[:port]), checked like the hosts themselves.",
    )
    common_args: list[SshText] = Field(
        default_factory=list,
        description="Extra arguments for every ssh, scp and sftp call, one word each, "
        "e.g. ['-o', 'ServerAliveInterval=30'].",
    )
    extra_args: list[SshText] = Field(default_factory=list, description="Extra arguments for ssh only, one word each.")

    @model_validator(mode="before")
    @classmethod
    def _no_secret_keys(cls, data: Any) -> Any:
        # Named here rather than as "unknown key": the fix is a path or an agent, not a spelling.
        if isinstance(data, dict):
            for key in data:
                if isinstance(key, str) and _SECRET_KEYS.search(key) and key != "private_key_file":
                    raise ValueError(
                        f"{key}: secrets never go in the stack file; name a private key file by path "
                        "(private_key_file) or use an SSH agent"
                    )
        return data

    @model_validator(mode="after")
    def _ssh_only(self) -> Connection:
        ssh_only = {
            "user": self.user,
            "port": self.port != 22,
            "private_key_file": self.private_key_file,
            "known_hosts_file": self.known_hosts_file,
            "host_key_checking": self.host_key_checking,
            "jump_host": self.jump_host,
            "common_args": self.common_args,
            "extra_args": self.extra_args,
        }
        if self.kind is not ConnectionKind.ssh and any(ssh_only.values()):
            raise ValueError(f"{', '.join(name for name, value in ssh_only.items() if value)} apply only to kind: ssh")
        return self


class Host(_Model):
    name: HostName
    address: str | None = Field(
        default=None,
        min_length=1,
        description="IP address or DNS name (ssh), or the node's root directory (chroot); default: the name.",
    )


class Validation(_Model):
    """What `validate.yml` and the end of every apply/upgrade prove on each node."""

    matmul_size: int = Field(default=4096, ge=8, le=65536, description="Square matmul size run on every device.")
    matmul: bool = Field(default=True, description="Run a matmul on every device through the framework.")
    dcgm_diag_level: int = Field(default=0, ge=0, le=4, description="`dcgmi diag -r N` level; 0 disables it.")
    nccl_tests: bool = Field(default=False, description="Run nccl-tests all_reduce_perf across the node's GPUs.")
    min_bus_bandwidth_gbps: float | None = Field(
        default=None, gt=0, description="Fail when all_reduce_perf's average bus bandwidth is lower (GB/s)."
    )
    devices: int | None = Field(
        default=None, ge=1, description="Devices each node must show (default: the accelerator's devices per node)."
    )


class HostGroup(_Model):
    name: GroupName
    accelerator: str = Field(description="Accelerator from the matrix vocabulary, e.g. nvidia-hgx-h100-8gpu.")
    software_profile: GroupName = Field(description="Name of the software profile every host runs.")
    efa: bool = Field(
        default=False, description="Hosts have EFA: install the EFA installer (NVIDIA: with its aws-ofi-nccl checked)."
    )
    hosts: list[Host] = Field(min_length=1, description="The group's hosts, canary first.")
    connection: Connection = Field(default_factory=Connection, description="How Ansible reaches the hosts.")
    validation: Validation = Field(default_factory=Validation, description="Node validation settings.")


class AptRepository(_Model):
    """One apt source (deb822). Versions are pinned per package; the repository only says where."""

    name: GroupName
    uri: str = Field(pattern=r"^(https?|file):\S+$", description="Repository URI (https: or file:).")
    suites: list[str] = Field(min_length=1, description="Suites, e.g. ['/'] for NVIDIA's flat CUDA repository.")
    components: list[str] = Field(default_factory=list, description="Components (empty for a flat repository).")
    signed_by: str | None = Field(
        default=None, pattern=r"^/\S+$", description="Keyring file on the node that signs the repository."
    )
    trusted: bool = Field(default=False, description="Skip signature checks: only for local file: repositories.")

    @model_validator(mode="after")
    def _trust(self) -> AptRepository:
        if self.trusted and not self.uri.startswith("file:"):
            raise ValueError("trusted: true is allowed only for local file: repositories; use signed_by")
        if not self.trusted and self.signed_by is None:
            raise ValueError("declare signed_by (the keyring on the node) or, for a file: repository, trusted: true")
        return self


class PythonPackages(_Model):
    index_url: str | None = Field(
        default=None,
        pattern=r"^https?://\S+$",
        description="Wheel index for the framework; default: download.pytorch.org's index for the profile's variant.",
    )
    find_links: str | None = Field(
        default=None, min_length=1, description="Local wheel directory on the node; installs with --no-index."
    )
    efa_installer_url: str | None = Field(
        default=None,
        min_length=1,
        description="Where the EFA installer tarball comes from; '{version}' is replaced (default: AWS's URL).",
    )


class NodeRollout(_Model):
    """How `accelplane nodes upgrade` walks the fleet: canary first, then batches; stop at the first failure."""

    canary: int = Field(default=1, ge=1, description="Hosts upgraded and validated before any other.")
    batch_size: int = Field(default=4, ge=1, description="Hosts per batch after the canary.")
    drain: list[str] | None = Field(
        default=None, min_length=1, description="Command run on the controller before a host is upgraded; {host}."
    )
    uncordon: list[str] | None = Field(
        default=None, min_length=1, description="Command run on the controller after a host passed validation; {host}."
    )
    reboot: bool = Field(default=True, description="Reboot a host whose driver changed (--skip-reboot overrides).")
    reboot_timeout: int = Field(default=1200, ge=60, description="Seconds to wait for a host to come back.")
    reboot_command: str | None = Field(
        default=None, min_length=1, description="Command that reboots a host (default: the system's reboot)."
    )
    boot_id_command: str | None = Field(
        default=None, min_length=1, description="Command printing an id that changes on every boot (default boot_id)."
    )


class BareMetal(_Model):
    """Hosts outside the cloud layer, configured and upgraded with Ansible."""

    repositories: list[AptRepository] = Field(min_length=1, description="apt repositories of the pinned packages.")
    python: PythonPackages = Field(default_factory=PythonPackages, description="Where framework wheels come from.")
    rollout: NodeRollout = Field(default_factory=NodeRollout, description="Canary and batch settings for upgrades.")
    strict_matrix: bool = Field(
        default=False, description="Refuse profiles the matrix calls conditional, not only incompatible ones."
    )
    connection: Connection | None = Field(
        default=None,
        description="Stack-wide connection settings; a group's own `connection` keys win. Groups of another kind "
        "(e.g. chroot) take nothing from it.",
    )
    groups: list[HostGroup] = Field(min_length=1, description="Host groups: accelerator, profile and hosts.")

    @model_validator(mode="before")
    @classmethod
    def _inherit_connection(cls, data: Any) -> Any:
        """Merge the stack-wide `connection` under each group's, before the groups are validated,
        so that a merged value that does not fit is reported at the group."""
        if not isinstance(data, dict) or not isinstance(data.get("connection"), dict):
            return data
        default = data["connection"]
        try:
            kind = Connection.model_validate(default).kind
        except ValidationError:
            return data  # reported once, at bare_metal.connection
        groups = data.get("groups")
        if not isinstance(groups, list):
            return data
        merged = []
        for group in groups:
            own = group.get("connection", {}) if isinstance(group, dict) else None
            if isinstance(own, dict) and own.get("kind", kind.value) == kind.value:
                group = {**group, "connection": {**default, **own}}
            merged.append(group)
        return {**data, "groups": merged}
