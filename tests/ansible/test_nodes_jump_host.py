"""A node reached only through a jump host, with host-key checking on against a known-hosts file
the stack declares: the connection settings of `bare_metal` carry Ansible there (issue 15).

sshd runs chrooted in one lab node inside a network namespace and listens on two addresses: the
one the controller's namespace reaches (the jump host) and one on the node namespace's loopback,
which only the node itself reaches (the target). The same sshd serves both hops.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.ansible import lab, netns
from tests.support.ansible.prereqs import require_tools

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _adhoc(ssh: netns.SshNode, stack: Path, control: Path) -> subprocess.CompletedProcess[str]:
    """`ansible` from the controller's namespace: read the node's boot id over the stack's connection."""
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "PYTHONPATH": str(ROOT),
        # A control socket of its own: no master of another test (same address, other namespace).
        "ANSIBLE_SSH_CONTROL_PATH_DIR": str(control),
        "ANSIBLE_SSH_RETRIES": "0",
        # No pipelining here: a piped module goes down ssh's stdin, and when ssh refused the host key Ansible
        # could lose the race to write it and report a broken pipe instead of ssh's own words (seen once in
        # CI under load). Without it the first thing ssh runs is a command line, and its refusal is what
        # Ansible reports. What is tested is the connection (the jump, the known-hosts files), not pipelining.
        "ANSIBLE_PIPELINING": "False",
    }
    command = [str(BIN / "ansible"), "-i", str(stack), "h100-01", "-m", "command", "-a", "cat /var/lib/lab/boot_id"]
    return subprocess.run(
        ["ip", "netns", "exec", ssh.controller_ns, *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_node_behind_a_jump_host_is_reached_with_host_key_checking(make_node, tmp_path):
    require_tools("ip", "ssh", "ssh-keygen")
    node = make_node("h100-01")
    ssh = netns.start(node, tmp_path, inner_address=netns.INNER_ADDRESS)
    # ssh limits a control socket's path to about 100 bytes: pytest's tmp_path can be longer.
    control = Path(tempfile.mkdtemp(prefix="apcp-"))
    try:
        key_type, key = node.path("etc/ssh/ssh_host_ed25519_key.pub").read_text().split()[:2]
        entries = {"jump": f"{ssh.address} {key_type} {key}\n", "target": f"{netns.INNER_ADDRESS} {key_type} {key}\n"}

        def run(name: str, known: list[str], jump: bool = True) -> subprocess.CompletedProcess[str]:
            known_hosts = tmp_path / f"known_hosts.{name}"
            known_hosts.write_text("".join(entries[entry] for entry in known))
            connection = {
                "kind": "ssh",
                "user": "root",
                "private_key_file": str(ssh.key),
                "known_hosts_file": str(known_hosts),
                "host_key_checking": "yes",
            }
            if jump:
                connection["jump_host"] = f"root@{ssh.address}:22"
            stack = lab.write_stack(
                tmp_path,
                {"h100-train": [("h100-01", Path(netns.INNER_ADDRESS))]},
                name=name,
                group_settings={"h100-train": {"connection": connection}},
            )
            # A master per run: a master left by an earlier run would carry the next one's
            # connection whatever its settings.
            (control / name).mkdir()
            return _adhoc(ssh, stack, control / name)

        through_jump = run("jump", ["jump", "target"])
        # Without the jump host the target is unreachable: the controller has no route to it.
        direct = run("direct", ["jump", "target"], jump=False)
        # Host-key checking is on for both hops, against the declared file only.
        unknown_target = run("notarget", ["jump"])
        unknown_jump = run("nojump", ["target"])
    finally:
        netns.stop(ssh)
        shutil.rmtree(control, ignore_errors=True)
    boot_id = node.path("var/lib/lab/boot_id").read_text().strip()
    assert through_jump.returncode == 0, through_jump.stdout + through_jump.stderr
    assert "CHANGED" in through_jump.stdout and boot_id in through_jump.stdout, through_jump.stdout
    assert direct.returncode != 0 and "UNREACHABLE" in direct.stdout, direct.stdout + direct.stderr
    output = unknown_target.stdout + unknown_target.stderr
    assert unknown_target.returncode != 0 and "Host key verification failed" in output, output
    # The jump hop's refusal reaches Ansible only as the proxy closing the connection; the run
    # differs from the one that succeeded by the jump host's known-hosts line alone.
    output = unknown_jump.stdout + unknown_jump.stderr
    assert unknown_jump.returncode != 0 and "UNREACHABLE" in output and boot_id not in output, output
