"""For a stack with bare-metal hosts, the whole-fleet node preflight (playbooks/preflight.yml, the
first play of every node playbook: the inventory and the version matrix's verdict on each host
group's profile) runs as part of `accelplane preflight`, so one command covers the stack. It needs
no connection to the hosts and changes nothing."""

from __future__ import annotations

import io
from pathlib import Path

from accelplane.config.loader import StackConfig
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck, Status, unknown

_CHECK = "nodes.preflight"


def node_preflight_checks(stack: StackConfig, options: PreflightOptions) -> list[PreflightCheck]:
    # Start-up time: ansible-runner loads only for stacks with bare-metal hosts.
    from accelplane.nodes.progress import ProgressView
    from accelplane.nodes.runner import run_playbook

    view = ProgressView(out=io.StringIO())
    try:
        result = run_playbook("preflight.yml", Path(options.inventory or stack.path), view=view)
    except Exception as error:
        return [unknown(_CHECK, "bare-metal fleet", f"the node preflight could not run: {error}", at=("bare_metal",))]
    checks = []
    for name, host in sorted(view.hosts.items()):
        if host.failed or host.unreachable:
            checks.append(PreflightCheck(_CHECK, f"host {name}", Status.failed, host.message or "failed the preflight",
                                         needs="profile accepted by the version matrix", has=host.status,
                                         fix="fix the host group's profile as the message says", at=("bare_metal",)))
        else:
            checks.append(PreflightCheck(_CHECK, f"host {name}", Status.passed, "the matrix accepts its profile",
                                         needs="profile accepted by the version matrix", has="accepted",
                                         at=("bare_metal",)))
    if not checks:
        status = Status.passed if result.ok else Status.failed
        checks.append(PreflightCheck(_CHECK, "bare-metal fleet", status, f"the node preflight ended {result.status}",
                                     at=("bare_metal",)))
    return checks
