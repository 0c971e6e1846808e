"""Run accelplane's playbooks through ansible-runner against a stack's bare-metal inventory.

The inventory source is the stack file itself (plugins/inventory/accelplane_stack.py), so what the
CLI shows and what plain `ansible-playbook -i stacks/Pulumi.<stack>.yaml` does are the same run.
Every run gets its own private data directory (artifacts, ANSIBLE_HOME); extravars are passed per
run and never written back (ansible-runner's env files are suppressed).
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelplane.nodes.progress import ProgressView

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PLAYBOOK_DIR = PROJECT_ROOT / "playbooks"
ANSIBLE_CONFIG = PROJECT_ROOT / "ansible.cfg"
PLAYBOOKS = {"apply": "site.yml", "validate": "validate.yml", "upgrade": "upgrade.yml"}


@dataclass
class RunResult:
    rc: int
    status: str
    view: ProgressView
    report_dir: Path
    private_data_dir: Path

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def reports(self) -> dict[str, str]:
        """Host -> report file written by node_validation in this run's report directory."""
        return {
            path.stem: str(path)
            for path in sorted(self.report_dir.glob("*.json"))
            if not path.stem.endswith(".rollback")
        }


def run_playbook(
    playbook: str,
    stack_file: Path,
    *,
    limit: str | None = None,
    check: bool = False,
    extravars: dict[str, Any] | None = None,
    report_dir: Path | None = None,
    private_data_dir: Path | None = None,
    fact_cache: Path | None = None,
    forks: int | None = None,
    view: ProgressView | None = None,
) -> RunResult:
    """Run `playbooks/<playbook>` (site.yml, validate.yml, upgrade.yml) for `stack_file`."""
    import ansible_runner

    private = private_data_dir or Path(tempfile.mkdtemp(prefix="accelplane-nodes-"))
    private.mkdir(parents=True, exist_ok=True)
    reports = report_dir or private / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    view = view or ProgressView(check=check)
    bin_dir = str(Path(sys.executable).parent)
    envvars = {
        "ANSIBLE_CONFIG": str(ANSIBLE_CONFIG),
        "ANSIBLE_HOME": str(private / "ansible-home"),
        "ANSIBLE_LOCAL_TEMP": str(private / "ansible-tmp"),
        "ANSIBLE_NOCOLOR": "1",
        # The controller runs this environment's Ansible and imports this checkout of accelplane.
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONPATH": str(PROJECT_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    if fact_cache is not None:
        envvars["ANSIBLE_CACHE_PLUGIN_CONNECTION"] = str(fact_cache)
    runner = ansible_runner.run(
        private_data_dir=str(private),
        project_dir=str(PLAYBOOK_DIR),
        playbook=playbook,
        inventory=str(Path(stack_file).resolve()),
        envvars=envvars,
        extravars={"node_validation_report_dir": str(reports.resolve()), **(extravars or {})},
        limit=limit,
        forks=forks,
        cmdline="--check" if check else None,
        quiet=True,
        event_handler=view,
        suppress_env_files=True,
    )
    rc = runner.rc if runner.rc is not None else 1  # None: Ansible never finished
    return RunResult(rc=int(rc), status=str(runner.status), view=view, report_dir=reports, private_data_dir=private)


def stdout_of(result: RunResult) -> str:
    """Ansible's own output of the run (kept in the artifacts), for messages and debugging."""
    for path in sorted((result.private_data_dir / "artifacts").glob("*/stdout")):
        return path.read_text(errors="replace")
    return ""
