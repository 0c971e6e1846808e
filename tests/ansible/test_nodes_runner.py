"""run_playbook's temporary run directory: removed after a run unless it holds what the user needs
(a failed run's Ansible output, validation reports written without --report-dir), and then kept,
trimmed, and named under the summary. ansible-runner is replaced by a stand-in that writes what
the real one writes into the directory; the lab tests (test_nodes_upgrade, test_nodes_cli) run the
same paths with real Ansible."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ansible_runner
import pytest

from accelplane.cli import main
from accelplane.nodes.runner import PLAYBOOK_DIR, PLAYBOOKS, count_plays, run_playbook

ROOT = Path(__file__).resolve().parents[2]
LAB_STACK = ROOT / "stacks" / "Pulumi.lab.yaml"


class StandInRunner:
    """Writes artifacts, scratch and (optionally) reports the way an ansible-runner run does."""

    def __init__(self, rc: int = 0, reports: tuple[str, ...] = (), interrupt: bool = False):
        self.rc, self.reports, self.interrupt = rc, reports, interrupt

    def __call__(self, **kwargs: Any) -> SimpleNamespace:
        private = Path(kwargs["private_data_dir"])
        artifacts = private / "artifacts" / "ident"
        artifacts.mkdir(parents=True)
        (artifacts / "stdout").write_text("PLAY RECAP\n")
        (private / "ansible-home").mkdir()
        (private / "ansible-tmp" / "ansible-local-1").mkdir(parents=True)
        for host in self.reports:
            (Path(kwargs["extravars"]["node_validation_report_dir"]) / f"{host}.json").write_text("{}\n")
        if self.interrupt:
            raise KeyboardInterrupt
        handler, uuid = kwargs["event_handler"], "0b7c2f64-0000-4000-8000-000000000001"
        handler({"event": "playbook_on_play_start", "event_data": {"play": "Validate", "play_uuid": uuid}})
        for host in self.reports:
            handler({"event": "runner_on_ok", "event_data": {"host": host, "task": "t", "play_uuid": uuid, "res": {}}})
        return SimpleNamespace(rc=self.rc, status="successful" if self.rc == 0 else "failed")


@pytest.fixture
def tmpdir_of_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TMPDIR for the run, so that what it leaves there can be seen."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    return tmp


def _left(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("accelplane-nodes-*"))


def test_a_successful_run_leaves_no_run_directory(tmpdir_of_run, tmp_path, monkeypatch):
    monkeypatch.setattr(ansible_runner, "run", StandInRunner(reports=("h100-01",)))
    result = run_playbook("validate.yml", LAB_STACK, report_dir=tmp_path / "reports")
    assert result.rc == 0 and result.kept is None
    assert _left(tmpdir_of_run) == []
    assert (tmp_path / "reports" / "h100-01.json").is_file()


def test_a_successful_run_keeps_only_the_reports_it_wrote_in_its_directory(tmpdir_of_run, monkeypatch):
    monkeypatch.setattr(ansible_runner, "run", StandInRunner(reports=("h100-01",)))
    result = run_playbook("validate.yml", LAB_STACK)
    assert result.kept is not None and _left(tmpdir_of_run) == [result.kept]
    assert sorted(p.name for p in result.kept.iterdir()) == ["reports"]
    assert result.reports() == {"h100-01": str(result.kept / "reports" / "h100-01.json")}


def test_a_failed_run_keeps_ansible_s_output_and_drops_its_scratch(tmpdir_of_run, monkeypatch):
    monkeypatch.setattr(ansible_runner, "run", StandInRunner(rc=2))
    result = run_playbook("upgrade.yml", LAB_STACK)
    assert result.kept is not None and _left(tmpdir_of_run) == [result.kept]
    assert sorted(p.name for p in result.kept.iterdir()) == ["artifacts"]  # no report was written
    assert (result.kept / "artifacts" / "ident" / "stdout").read_text() == "PLAY RECAP\n"


def test_an_interrupted_run_keeps_its_output_and_says_where(tmpdir_of_run, monkeypatch, capsys):
    monkeypatch.setattr(ansible_runner, "run", StandInRunner(interrupt=True))
    with pytest.raises(KeyboardInterrupt):
        run_playbook("site.yml", LAB_STACK)
    [kept] = _left(tmpdir_of_run)
    assert sorted(p.name for p in kept.iterdir()) == ["artifacts"]
    assert f"Ansible's output so far is kept in {kept}" in capsys.readouterr().err


def test_a_run_directory_the_caller_names_is_left_alone(tmpdir_of_run, tmp_path, monkeypatch):
    monkeypatch.setattr(ansible_runner, "run", StandInRunner())
    result = run_playbook("site.yml", LAB_STACK, private_data_dir=tmp_path / "run")
    assert result.kept is None
    left = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert left == ["ansible-home", "ansible-tmp", "artifacts", "reports"]


def test_the_cli_names_a_kept_directory_under_its_summary(tmpdir_of_run, monkeypatch, capsys):
    monkeypatch.setattr(ansible_runner, "run", StandInRunner(reports=("h100-01",)))
    assert main(["nodes", "validate", "--stack", "lab", "--limit", "h100-01"]) == 0
    [kept] = _left(tmpdir_of_run)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"kept {kept}: validation reports in reports/; remove it when done"
    assert any(line.endswith(str(kept / "reports" / "h100-01.json")) for line in lines)


def test_the_cli_says_nothing_of_a_run_directory_it_removed(tmpdir_of_run, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ansible_runner, "run", StandInRunner(reports=("h100-01",)))
    assert main(["nodes", "validate", "--stack", "lab", "--report-dir", str(tmp_path / "reports")]) == 0
    assert _left(tmpdir_of_run) == []
    assert "kept" not in capsys.readouterr().out


def test_every_playbook_has_the_preflight_and_one_play_that_does_the_work():
    # ProgressView marks a host "not run" when it had no task in the last of these plays.
    assert {name: count_plays(PLAYBOOK_DIR / playbook) for name, playbook in PLAYBOOKS.items()} == {
        "apply": 2,
        "validate": 2,
        "upgrade": 3,  # the fleet-wide check of the new profile runs before the serial play
    }
