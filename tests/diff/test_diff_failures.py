"""`accelplane diff` when something goes wrong: bad input is exit 2 with a message naming what and
where, and the temporary copy is removed and no engine run is left behind, whatever failed."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.diff.preview_runner import PreviewJob, run_previews
from accelplane.errors import InputError
from tests.diff.git_project import commit_all, copy_project, edit, git_state, init_repository, snapshot


@pytest.fixture(scope="module")
def broken_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """HEAD~1 has a dev stack the model rejects; HEAD fixes it."""
    repo = copy_project(tmp_path_factory.mktemp("diff-failures") / "repo")
    dev = repo / "stacks" / "Pulumi.dev.yaml"
    edit(dev, "        nat: single\n", "        nat: sometimes\n")
    init_repository(repo)
    edit(dev, "        nat: sometimes\n", "        nat: single\n")
    commit_all(repo, "fix the NAT mode")
    return repo


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    yield root


def test_unknown_revision_is_bad_input(broken_base: Path, temp_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", "--stack", "dev", "--base", "no-such-branch", "--project-dir", str(broken_base)])
    assert code == 2
    err = capsys.readouterr().err
    assert "--base: expected a commit named 'no-such-branch'" in err and "Traceback" not in err
    assert list(temp_root.iterdir()) == []


def test_unknown_stack_and_bad_project_dir_are_bad_input(
    broken_base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", "--stack", "nope", "--base", "HEAD", "--project-dir", str(broken_base)]) == 2
    # The message lists every stack file of the project, whatever stacks the repository holds.
    here = ", ".join(
        sorted(
            path.name.removeprefix("Pulumi.").removesuffix(".yaml")
            for path in (broken_base / "stacks").glob("Pulumi.*.yaml")
        )
    )
    assert "no stack 'nope' (expected " in (err := capsys.readouterr().err) and f"stacks here: {here})" in err
    assert main(["diff", "--stack", "dev", "--base", "HEAD", "--project-dir", str(tmp_path / "missing")]) == 2
    assert "--project-dir: not a directory" in capsys.readouterr().err
    outside = tmp_path / "not-a-repo"
    copy_project(outside)
    assert main(["diff", "--stack", "dev", "--base", "HEAD", "--project-dir", str(outside)]) == 2
    assert "expected a git repository" in capsys.readouterr().err


def test_a_failing_base_preview_is_reported_and_cleaned_up(
    broken_base: Path, temp_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, git_before = snapshot(broken_base), git_state(broken_base)
    code = main(["diff", "--stack", "dev", "--base", "HEAD~1", "--project-dir", str(broken_base)])
    assert code == 2
    err = capsys.readouterr().err
    # The base's own message, with its file, line and field, under a line naming the revision.
    assert "`accelplane preview --stack dev` failed on the base revision HEAD~1 (" in err
    assert "(bad input)" in err
    line = (broken_base / "stacks" / "Pulumi.dev.yaml").read_text().split("nat: single")[0].count("\n") + 1
    # The temporary copy is gone by now: its files are named the way git names them, <rev>:<path>.
    assert f"error: HEAD~1:stacks/Pulumi.dev.yaml:{line}: accelplane:platform.network.new_vpc.nat: " in err
    assert str(temp_root) not in err
    assert list(temp_root.iterdir()) == []
    assert snapshot(broken_base) == before and git_state(broken_base) == git_before


@pytest.mark.parametrize("error", [RuntimeError("engine exploded"), KeyboardInterrupt()])
def test_an_error_after_the_checkout_still_removes_it(
    broken_base: Path, temp_root: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    seen: list[Path] = []

    def fail(jobs: list[PreviewJob]) -> list[dict[str, object]]:
        base = jobs[1].project_dir
        assert (base / "stacks" / "Pulumi.dev.yaml").read_text().count("nat: sometimes") == 1  # HEAD~1's file
        seen.append(base)
        raise error

    monkeypatch.setattr("accelplane.diff.stack_diff.run_previews", fail)
    if isinstance(error, KeyboardInterrupt):
        assert main(["diff", "--stack", "dev", "--base", "HEAD~1", "--project-dir", str(broken_base)]) == 130
    else:
        with pytest.raises(RuntimeError, match="engine exploded"):
            main(["diff", "--stack", "dev", "--base", "HEAD~1", "--project-dir", str(broken_base)])
    assert seen and not seen[0].exists()
    assert list(temp_root.iterdir()) == []


@dataclass(frozen=True)
class _ScriptJob(PreviewJob):
    script: str = ""

    def command(self) -> list[str]:
        return [sys.executable, "-c", self.script]


def test_when_one_run_fails_the_other_is_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "sleeper.pid"
    sleeper = _ScriptJob(
        "working tree",
        tmp_path,
        "dev",
        tmp_path / "a.json",
        tmp_path / "a.log",
        # Runs until a signal ends it: the code under test must kill it.
        script=f"import os, signal; open({str(pid_file)!r}, 'w').write(str(os.getpid())); signal.pause()",
    )
    failing = _ScriptJob(
        "base revision main (1234567)",
        tmp_path,
        "dev",
        tmp_path / "b.json",
        tmp_path / "b.log",
        # Fails once the other run is under way (its pid written), as a real failure would come mid-run.
        script=(f"import os, sys, time\nwhile not os.path.exists({str(pid_file)!r}): time.sleep(0.01)\n"
                "print('error: stacks/Pulumi.dev.yaml:3: bad'); sys.exit(2)"),
    )
    with pytest.raises(InputError) as raised:
        run_previews([sleeper, failing])
    message = str(raised.value)
    assert "failed on the base revision main (1234567) (bad input):\nerror: stacks/Pulumi.dev.yaml:3: bad" in message
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped


def test_a_crash_without_a_graph_is_a_failure_not_an_empty_graph(tmp_path: Path) -> None:
    crash = _ScriptJob(
        "working tree",
        tmp_path,
        "dev",
        tmp_path / "a.json",
        tmp_path / "a.log",
        script="raise ValueError('zip() argument 2 is longer than argument 1')",
    )
    with pytest.raises(InputError) as raised:
        run_previews([crash])
    message = str(raised.value)
    assert "failed on the working tree (exit code 1):\nTraceback" in message
    assert "ValueError: zip() argument 2 is longer than argument 1" in message
