"""plugins/strategy/accelplane_linear.py: the same results as Ansible's linear strategy, with every
task handled in the controller process: controller-only tasks and those a false `when` skips in
its main thread, the tasks that reach a host in threads of it.

One playbook covers what the roles rely on: facts set per host and read later, a failed assert
rescued in a block, includes of task files and roles (also skipped ones), a failure with
ignore_errors, a looped set_fact, a condition that cannot be judged, a task with a timeout, a
throttled task, a result that cannot be sent, check mode, registered results of skipped tasks. It
runs on three local hosts under both strategies; each host writes what it ended with, and the
files and the recap must be the same. A `pipe` lookup records which process templated a task,
which shows where it ran.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import typing as t
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
        "name": "Record the process that templates a module task",
        "ansible.builtin.command": "echo {{ lookup('ansible.builtin.pipe', 'echo $PPID') }}",
        "register": "module_templated",
        "changed_when": False,
        "check_mode": False,
    },
    {
        # The executor's task timeout is an alarm signal, which only the main thread receives.
        "name": "A module task with a timeout",
        "ansible.builtin.command": "echo timed",
        "register": "timed_result",
        "changed_when": False,
        "check_mode": False,
        "timeout": 60,
    },
    {
        # Each host records when its run of the task started and ended: no two may overlap.
        "name": "A throttled module task",
        "ansible.builtin.shell": (
            "date +%s.%N > {{ out_dir }}/{{ inventory_hostname }}.throttled; sleep 0.3;"
            " date +%s.%N >> {{ out_dir }}/{{ inventory_hostname }}.throttled"
        ),
        "changed_when": False,
        "check_mode": False,
        "throttle": 1,
    },
    {
        # (action_plugins/unpicklable.py: a result with a lock in it, which no queue can carry)
        "name": "A result the result queue cannot carry",
        "unpicklable": {},
        "register": "unpicklable_result",
        "ignore_errors": True,
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
                " 'failed_msg': failed_result.msg, 'looped': looped, 'timed': timed_result.stdout,"
                " 'module_templated_by': module_templated.stdout, 'unpicklable': unpicklable_result.msg}"
                " | to_nice_json }}"
            ),
        },
        "check_mode": False,
    },
]


_UNPICKLABLE_ACTION = """
import threading

from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    def run(self, tmp=None, task_vars=None):
        return {"changed": False, "lock": threading.Lock()}
"""


class Run(t.NamedTuple):
    ended: dict[str, dict]  # what each host ended with, less the templating processes
    recap: str
    controller_task_processes: set[str]  # the processes that templated the controller task
    module_task_processes: set[str]  # ... and the module task
    throttled: list[tuple[float, float]]  # when each host's run of the throttled task started and ended


def _run(tmp_path: Path, strategy: str, *, check: bool = False) -> Run:
    work = tmp_path / strategy
    (work / "out").mkdir(parents=True)
    (work / "roles" / "probe_role" / "tasks").mkdir(parents=True)
    (work / "roles" / "probe_role" / "tasks" / "main.yml").write_text(
        yaml.safe_dump([{"name": "Set a fact from a role", "ansible.builtin.set_fact": {"role_fact": "{{ index }}"}}])
    )
    (work / "action_plugins").mkdir()
    (work / "action_plugins" / "unpicklable.py").write_text(_UNPICKLABLE_ACTION)
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
    throttled = []
    for host in HOSTS:
        start, end = (work / "out" / f"{host}.throttled").read_text().split()
        throttled.append((float(start), float(end)))
    return Run(
        ended=ended,
        recap=recap,
        controller_task_processes={values.pop("templated_by") for values in ended.values()},
        module_task_processes={values.pop("module_templated_by") for values in ended.values()},
        throttled=sorted(throttled),
    )


@pytest.mark.parametrize("check", [False, True], ids=["apply", "check-mode"])
def test_accelplane_linear_ends_where_linear_does_with_every_task_in_the_controller(tmp_path, check):
    linear = _run(tmp_path, "linear", check=check)
    ours = _run(tmp_path, "accelplane_linear", check=check)
    assert ours.ended == linear.ended
    assert ours.recap == linear.recap
    # The play did what it says on each host (so that equal results are not equal failures).
    ended = linear.ended
    assert ended["beta"]["rescued"] == "Only index 0 and 2 pass" and ended["alpha"]["rescued"] is None
    assert (ended["alpha"]["included"], ended["gamma"]["role_fact"]) == (0, 2)
    assert ended["alpha"]["stdout"] == "ran-alpha" and ended["beta"]["command_skipped"] is True
    assert ended["alpha"]["skipped"] is True and ended["alpha"]["false_condition"].startswith("ansible_check_mode")
    assert ended["alpha"]["undefined_failed"] is True and ended["alpha"]["looped"] == [1, 2, 3]
    assert ended["gamma"]["timed"] == "timed"
    assert ended["beta"]["unpicklable"].startswith("Task result omitted due to queue send failure")
    # Under linear each host's tasks are templated in a forked worker of their own; here all
    # three hosts' tasks are templated by one process, the controller: the set_fact in its main
    # thread, the command in threads that wait on the hosts as workers would.
    assert len(linear.controller_task_processes) == len(linear.module_task_processes) == len(HOSTS)
    assert len(ours.controller_task_processes) == len(ours.module_task_processes) == 1
    # `throttle: 1` still runs one host at a time.
    for run in (linear, ours):
        pairs = zip(run.throttled, run.throttled[1:], strict=False)
        assert all(end <= start for (_, end), (start, _) in pairs), run.throttled
