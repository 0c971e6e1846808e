"""`accelplane nodes`: bad input exits 2 before Ansible starts; a node over real SSH in a
network namespace runs through the CLI with progress and a summary, and leaves no run directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from accelplane.cli import main
from tests.support.ansible import lab, netns
from tests.support.ansible.prereqs import require_tools

ROOT = Path(__file__).resolve().parents[2]


def test_a_stack_without_bare_metal_hosts_exits_2(capsys):
    assert main(["nodes", "apply", "--stack", "dev"]) == 2
    err = capsys.readouterr().err
    assert "stacks/Pulumi.dev.yaml: accelplane:platform.bare_metal: stack 'dev' declares no bare-metal hosts" in err


def test_a_limit_matching_no_host_exits_2(capsys):
    assert main(["nodes", "validate", "--stack", "lab", "--limit", "h200-*"]) == 2
    assert "--limit 'h200-*' matches no host or group of the stack" in capsys.readouterr().err


def test_an_unknown_stack_exits_2(capsys):
    assert main(["nodes", "upgrade", "--stack", "nope"]) == 2
    assert "no stack 'nope'" in capsys.readouterr().err


def test_validate_over_ssh_in_a_network_namespace(applied, make_node, tmp_path):
    """sshd runs chrooted in the node's root inside one namespace; the CLI runs in another."""
    require_tools("ip", "ssh", "ssh-keygen")
    node = make_node("h100-01", snapshot=applied.h100)
    ssh = netns.start(node, tmp_path)
    try:
        stack = lab.write_stack(
            tmp_path,
            {"h100-train": [("h100-01", Path(ssh.address))]},
            group_settings={
                "h100-train": {"connection": {"kind": "ssh", "user": "root", "private_key_file": str(ssh.key)}}
            },
        )
        reports = tmp_path / "reports"
        run_tmp = tmp_path / "tmp"  # the run directory goes here: nothing of it may stay
        run_tmp.mkdir()
        env = {
            **os.environ,
            "TMPDIR": str(run_tmp),
            "ANSIBLE_SSH_ARGS": f"-o UserKnownHostsFile={ssh.known_hosts} -o StrictHostKeyChecking=yes",
            # The chrooted sshd has no /dev/pts: no terminal for commands run without a module (script).
            "ANSIBLE_SSH_USETTY": "False",
            "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(tmp_path / "facts"),
            "PYTHONPATH": str(ROOT),
        }
        result = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                ssh.controller_ns,
                sys.executable,
                "-m",
                "accelplane",
                "nodes",
                "validate",
                "--stack-file",
                str(stack),
                "--report-dir",
                str(reports),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        netns.stop(ssh)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # The header names the stack file given (it said `--stack labtest`, an option never typed).
    assert lines[0] == f"accelplane nodes validate --stack-file {stack}: 1 host"
    assert any(line.endswith("== Validate the nodes against their profiles") for line in lines)
    summary = lines[lines.index("") + 1 :]
    assert summary[0].split()[:2] == ["host", "status"]
    assert summary[1].split()[:2] == ["h100-01", "ok"] and summary[1].endswith(str(reports / "h100-01.json"))
    # A run that succeeded with its reports elsewhere (--report-dir) leaves nothing behind.
    assert list(run_tmp.glob("accelplane-nodes-*")) == []
    assert not any(line.startswith("kept ") for line in lines)
    report = json.loads((reports / "h100-01.json").read_text())
    assert report["ok"] is True and len(report["devices"]) == 8
    assert not subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.count(ssh.node_ns)
