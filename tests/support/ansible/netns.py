"""One lab node reached over real SSH: sshd runs chrooted in the node's root inside a network
namespace, the controller runs in a second namespace, joined by a veth pair. Only addresses
inside these two namespaces are used; teardown kills what runs in them before deleting them.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.ansible.nodes import LabNode

SUBNET = "10.254.13"  # a /30 that exists only between the two namespaces
# With `start(..., inner_address=INNER_ADDRESS)` sshd also listens on this address, held by the
# node namespace's loopback: reachable from the node itself (a jump host there), not from the
# controller, which has no route to it.
INNER_ADDRESS = "10.254.14.1"


@dataclass
class SshNode:
    controller_ns: str
    node_ns: str
    address: str
    key: Path
    known_hosts: Path


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True)


def start(node: LabNode, work: Path, *, inner_address: str | None = None) -> SshNode:
    tag = f"{os.getpid() % 100000}"
    controller_ns, node_ns = f"apctl{tag}", f"apnode{tag}"
    ssh = SshNode(controller_ns, node_ns, f"{SUBNET}.2", work / "id_ed25519", work / "known_hosts")
    _ip("netns", "add", controller_ns)
    try:
        _ip("netns", "add", node_ns)
        _ip(
            "link",
            "add",
            f"apc{tag}",
            "netns",
            controller_ns,
            "type",
            "veth",
            "peer",
            "name",
            f"apn{tag}",
            "netns",
            node_ns,
        )
        for ns, link, address in ((controller_ns, f"apc{tag}", f"{SUBNET}.1"), (node_ns, f"apn{tag}", f"{SUBNET}.2")):
            _ip("-n", ns, "addr", "add", f"{address}/30", "dev", link)
            _ip("-n", ns, "link", "set", link, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        if inner_address:
            _ip("-n", node_ns, "addr", "add", f"{inner_address}/32", "dev", "lo")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(ssh.key)], check=True)
        node.path("root/.ssh").mkdir(mode=0o700, parents=True, exist_ok=True)
        node.path("root/.ssh/authorized_keys").write_text(ssh.key.with_suffix(".pub").read_text())
        node.path("run/sshd").mkdir(parents=True, exist_ok=True)
        node.path("etc/ssh/sshd_config.lab").write_text(
            f"ListenAddress {ssh.address}\n"
            + (f"ListenAddress {inner_address}\n" if inner_address else "")
            + "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
            "UsePAM no\nStrictModes no\nAuthorizedKeysFile /root/.ssh/authorized_keys\n"
            "Subsystem sftp /usr/lib/openssh/sftp-server\n"
        )
        host_key = node.path("etc/ssh/ssh_host_ed25519_key.pub").read_text().split()
        ssh.known_hosts.write_text(f"{ssh.address} {host_key[0]} {host_key[1]}\n")
        subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                node_ns,
                "chroot",
                str(node.root),
                "/usr/sbin/sshd",
                "-D",
                "-e",
                "-f",
                "/etc/ssh/sshd_config.lab",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(work / "sshd.log", "w"),  # noqa: SIM115 - the process keeps it
        )
        _wait_for_port(controller_ns, ssh.address)
    except Exception:
        stop(ssh)
        raise
    return ssh


def _wait_for_port(namespace: str, address: str) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        probe = subprocess.run(
            ["ip", "netns", "exec", namespace, "bash", "-c", f"exec 3<>/dev/tcp/{address}/22"],
            capture_output=True,
        )
        if probe.returncode == 0:
            return
        time.sleep(0.05)
    raise RuntimeError(f"sshd did not listen on {address}:22")


def stop(ssh: SshNode) -> None:
    for namespace in (ssh.node_ns, ssh.controller_ns):
        pids = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True).stdout.split()
        for pid in pids:
            subprocess.run(["kill", "-TERM", pid], capture_output=True)
        for pid in pids:
            deadline = time.monotonic() + 5
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            subprocess.run(["kill", "-KILL", pid], capture_output=True)
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
