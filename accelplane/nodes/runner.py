"""Run accelplane's playbooks through ansible-runner against a stack's bare-metal inventory.

The inventory source is the stack file itself (plugins/inventory/accelplane_stack.py), so what the
CLI shows and what plain `ansible-playbook -i stacks/Pulumi.<stack>.yaml` does are the same run.
Every run gets its own private data directory (artifacts, ANSIBLE_HOME); extravars are passed per
run and never written back (ansible-runner's env files are suppressed).

The run directory. Unless the caller names one (`private_data_dir`: the caller owns it and it is
left alone), it is a fresh `accelplane-nodes-*` directory under the temporary directory (TMPDIR),
readable by its owner only, and what happens to it once Ansible has ended is decided here
(`settle_run_dir`), never left to chance:

- Ansible's scratch (`ansible-home/`, `ansible-tmp/`) is always removed.
- A run that failed keeps `artifacts/` (Ansible's whole output and its job events, what anyone
  debugging the failure needs; `artifacts/<id>/command` also records the environment Ansible ran
  with) and `reports/` (the per-node validation reports, the failed ones included).
- A run that succeeded keeps only `reports/`, and only when it holds reports (validate, and the
  validation inside apply and upgrade, without `--report-dir`): the summary points at them.
- Anything else is removed, with the directory when nothing is kept.

`RunResult.kept` is the directory when it stays; `accelplane nodes` prints it under its summary.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from accelplane.config.project import SOURCE_CHECKOUT, project_around
from accelplane.errors import InputError
from accelplane.nodes.progress import ProgressView
from accelplane.nodes.socket_tempdir import controller_tempdir

# The Ansible content (playbooks/, roles/, plugins/, ansible.cfg) is part of the project, not of the
# Python package: a run uses the project the stack file is in, else this source checkout.
PLAYBOOK_DIR = SOURCE_CHECKOUT / "playbooks"
PLAYBOOKS = {"apply": "site.yml", "validate": "validate.yml", "upgrade": "upgrade.yml"}


def ansible_root(stack_file: Path) -> Path:
    """The directory whose playbooks/ and ansible.cfg run this stack file's hosts."""
    around = project_around(stack_file.parent)
    for candidate in (*([around.root] if around else []), SOURCE_CHECKOUT):
        if (candidate / "playbooks").is_dir() and (candidate / "ansible.cfg").is_file():
            return candidate
    raise InputError.single(
        "no playbooks/ and ansible.cfg in the project of this stack file or in accelplane's own checkout: "
        "run `accelplane nodes` from a clone of the accelplane repository", file=str(stack_file))


@dataclass
class RunResult:
    rc: int
    status: str
    view: ProgressView
    report_dir: Path
    private_data_dir: Path
    # The temporary run directory when it stays after the run (see the module docstring), else None.
    kept: Path | None = None

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
    """Run `playbooks/<playbook>` (site.yml, validate.yml, upgrade.yml) for `stack_file`.

    Without `private_data_dir` the run gets a temporary directory that is removed afterwards, or
    kept, trimmed, when it holds what the user needs (`RunResult.kept`; module docstring)."""
    # Start-up time: ansible-runner (and ansible-core with it) loads only when this runs.
    import ansible_runner

    root = ansible_root(Path(stack_file))
    view = view or ProgressView(check=check)
    if view.expected_plays is None:
        view.expected_plays = count_plays(root / "playbooks" / playbook)
    socket_tempdir = controller_tempdir()  # before the run directory exists: a refusal leaves nothing
    temporary = private_data_dir is None
    private = private_data_dir or Path(tempfile.mkdtemp(prefix="accelplane-nodes-"))
    private.mkdir(parents=True, exist_ok=True)
    reports = report_dir or private / "reports"
    bin_dir = str(Path(sys.executable).parent)
    envvars = {
        "ANSIBLE_CONFIG": str(root / "ansible.cfg"),
        "ANSIBLE_HOME": str(private / "ansible-home"),
        "ANSIBLE_LOCAL_TEMP": str(private / "ansible-tmp"),
        "ANSIBLE_NOCOLOR": "1",
        # The controller runs this environment's Ansible, and the inventory plugin imports the
        # accelplane this process runs (an installed package or this checkout).
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    if socket_tempdir is not None:
        # TMPDIR too long for the socket ansible-core's controller binds (socket_tempdir.py).
        envvars["TMPDIR"] = socket_tempdir
    if fact_cache is not None:
        envvars["ANSIBLE_CACHE_PLUGIN_CONNECTION"] = str(fact_cache)
    try:
        reports.mkdir(parents=True, exist_ok=True)
        runner = ansible_runner.run(
            private_data_dir=str(private),
            project_dir=str(root / "playbooks"),
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
    except BaseException:
        # Interrupted (Ctrl-C), or ansible-runner could not start: settled as a failed run, so what
        # Ansible wrote so far stays, and says where.
        if temporary and (kept := settle_run_dir(private, ok=False, report_dir=reports)):
            print(f"accelplane nodes: Ansible's output so far is kept in {kept}", file=sys.stderr)
        raise
    view.finish()
    rc = runner.rc if runner.rc is not None else 1  # None: Ansible never finished
    kept = settle_run_dir(private, ok=rc == 0, report_dir=reports) if temporary else None
    return RunResult(
        rc=int(rc), status=str(runner.status), view=view, report_dir=reports, private_data_dir=private, kept=kept
    )


def settle_run_dir(private: Path, *, ok: bool, report_dir: Path) -> Path | None:
    """Trim a temporary run directory to what the user needs, or remove it; the directory if it stays.

    Failed run: keep `artifacts/` and a non-empty `reports/`. Succeeded: keep a non-empty
    `reports/` only. Everything else goes (module docstring)."""
    keep = set()
    if report_dir.is_dir() and any(report_dir.glob("*.json")) and report_dir.resolve().parent == private.resolve():
        keep.add(report_dir.name)
    if not ok:
        keep.add("artifacts")
    for entry in private.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    if any(private.iterdir()):
        return private
    private.rmdir()
    return None


def count_plays(playbook: Path) -> int:
    """The plays of a playbook, those of `import_playbook` included (preflight.yml is one)."""
    count = 0
    for entry in yaml.safe_load(playbook.read_text()) or []:
        imported = entry.get("ansible.builtin.import_playbook") or entry.get("import_playbook")
        count += count_plays(playbook.parent / imported) if imported else 1
    return count


def stdout_of(result: RunResult) -> str:
    """Ansible's own output of the run (kept in the artifacts), for messages and debugging."""
    for path in sorted((result.private_data_dir / "artifacts").glob("*/stdout")):
        return path.read_text(errors="replace")
    return ""
