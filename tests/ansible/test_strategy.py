"""plugins/strategy/accelplane_linear.py: the same results as Ansible's linear strategy, with the
controller-only tasks and the tasks a false `when` skips handled in the controller process.

One playbook covers what the roles rely on: facts set per host and read later, a failed assert
rescued in a block, includes of task files and roles (also skipped ones), a failure with
ignore_errors, a looped set_fact, a condition that cannot be judged, check mode, registered
results of skipped tasks. It runs on three local hosts under both strategies; each host writes
what it ended with, and the files and the recap must be the same. A `pipe` lookup records which
process templated it, which shows where each task ran.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HOSTS = ("alpha", "beta", "gamma")

_TASKS = [
    {
        "name": "Remember the host's index",
        "ansible.builtin.set_fact": {"index": "{{ groups['all'].index(inventory_hostname) }}"},
    },
    {
        "name": "Record the process that templates a controller task",
        "ansible.builtin.set_fact": {"templated_by": "{{ lookup('ansible.builtin.pipe', 'echo $PPID') }}"},
    },
    {
        "name": "Fail on beta and rescue it",
        "block": [
            {"name": "Only index 0 and 2 pass", "ansible.builtin.assert": {"that": "index | int != 1", "quiet": True}}
        ],
        "rescue": [
            {"name": "Note the rescue", "ansible.builtin.set_fact": {"rescued": "{{ ansible_failed_task.name }}"}}
        ],
    },
    {"name": "Include a task file", "ansible.builtin.include_tasks": "included.yml", "when": "index | int != 2"},
    {"name": "Include a role", "ansible.builtin.include_role": {"name": "probe_role"}, "when": "index | int == 2"},
    {
        "name": "Run a command where the condition holds",
        "ansible.builtin.command": "echo ran-{{ inventory_hostname }}",
        "register": "command_result",
        "changed_when": False,
        "check_mode": False,
        "when": "index | int == 0",
    },
    {
        "name": "A module task every host skips",
        "ansible.builtin.command": "false",
        "register": "skipped_result",
        "when": "ansible_check_mode and index | int > 5",
    },
    {
        "name": "A condition that cannot be judged",
        "ansible.builtin.command": "true",
        "when": "no_such_variable | bool",
        "ignore_errors": True,
        "register": "undefined_result",
    },
    {
        "name": "Fail and go on",
        "ansible.builtin.fail": {"msg": "expected"},
        "ignore_errors": True,
        "register": "failed_result",
    },
    {
        "name": "Loop",
        "ansible.builtin.set_fact": {"looped": "{{ (looped | default([])) + [item] }}"},
        "loop": [1, 2, 3],
    },
    {"name": "Debug", "ansible.builtin.debug": {"var": "index"}},
    {
        "name": "Write what the host ended with",
        "ansible.builtin.copy": {
            "dest": "{{ out_dir }}/{{ inventory_hostname }}.json",
            "mode": "0644",
            "content": (
                "{{ {'index': index, 'templated_by': templated_by, 'rescued': rescued | default(None),"
                " 'included': included | default(None),"
                " 'role_fact': role_fact | default(None), 'stdout': command_result.stdout | default(None),"
                " 'command_skipped': command_result.skipped | default(False), 'skipped': skipped_result.skipped,"
                " 'skip_reason': skipped_result.skip_reason, 'false_condition': skipped_result.false_condition,"
                " 'undefined_failed': undefined_result.failed | default(False),"
                " 'failed_msg': failed_result.msg, 'looped': looped} | to_nice_json }}"
            ),
        },
        "check_mode": False,
    },
]


def _run(tmp_path: Path, strategy: str, *, check: bool = False) -> tuple[dict[str, dict], str, set[str]]:
    """What each host ended with (less the templating process), the recap, and the processes
    that templated the controller task."""
    work = tmp_path / strategy
    (work / "out").mkdir(parents=True)
    (work / "roles" / "probe_role" / "tasks").mkdir(parents=True)
    (work / "roles" / "probe_role" / "tasks" / "main.yml").write_text(
        yaml.safe_dump([{"name": "Set a fact from a role", "ansible.builtin.set_fact": {"role_fact": "{{ index }}"}}])
    )
    (work / "included.yml").write_text(
        yaml.safe_dump(
            [{"name": "Set a fact from a task file", "ansible.builtin.set_fact": {"included": "{{ index }}"}}]
        )
    )
    play = [{"name": "Strategy", "hosts": "all", "gather_facts": False, "strategy": strategy, "tasks": _TASKS}]
    (work / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False))
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_HOME": str(work / "home"),
        "ANSIBLE_ROLES_PATH": str(work / "roles"),
        "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(work / "facts"),
        "NO_COLOR": "1",
    }
    command = [
        str(Path(sys.executable).parent / "ansible-playbook"),
        "-i",
        ",".join(HOSTS) + ",",
        "-e",
        f"ansible_connection=local ansible_python_interpreter={sys.executable} out_dir={work / 'out'}",
        str(work / "play.yml"),
    ]
    result = subprocess.run(
        [*command, "--check"] if check else command, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    recap = "\n".join(
        line.split(None, 1)[1] for line in result.stdout.splitlines() if re.match(r"^(alpha|beta|gamma)\s+:", line)
    )
    ended = {host: json.loads((work / "out" / f"{host}.json").read_text()) for host in HOSTS}
    templated_by = {values.pop("templated_by") for values in ended.values()}
    return ended, recap, templated_by


@pytest.mark.parametrize("check", [False, True], ids=["apply", "check-mode"])
def test_accelplane_linear_ends_where_linear_does_with_controller_tasks_in_the_controller(tmp_path, check):
    linear, linear_recap, linear_processes = _run(tmp_path, "linear", check=check)
    ours, our_recap, our_processes = _run(tmp_path, "accelplane_linear", check=check)
    assert ours == linear
    assert our_recap == linear_recap
    # The play did what it says on each host (so that equal results are not equal failures).
    assert linear["beta"]["rescued"] == "Only index 0 and 2 pass" and linear["alpha"]["rescued"] is None
    assert (linear["alpha"]["included"], linear["gamma"]["role_fact"]) == (0, 2)
    assert linear["alpha"]["stdout"] == "ran-alpha" and linear["beta"]["command_skipped"] is True
    assert linear["alpha"]["skipped"] is True and linear["alpha"]["false_condition"].startswith("ansible_check_mode")
    assert linear["alpha"]["undefined_failed"] is True and linear["alpha"]["looped"] == [1, 2, 3]
    # Under linear each host's set_fact is templated in its own forked worker; here all three are
    # templated by one process, the controller.
    assert len(linear_processes) == len(HOSTS)
    assert len(our_processes) == 1
