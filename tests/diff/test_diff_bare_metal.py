"""`accelplane diff` judges the bare-metal host groups too: a change that makes a group's profile
incompatible is an introduced blocking finding (exit 1), not "matrix: incompatible … PASSED"."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cli import main
from tests.diff.git_project import copy_project, edit, init_repository


@pytest.fixture(scope="module")
def lab_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = copy_project(tmp_path_factory.mktemp("diff-bare-metal") / "repo")
    init_repository(repo)
    # Uncommitted: Fabric Manager one patch away from the driver on an NVSwitch (HGX) system.
    edit(repo / "stacks" / "Pulumi.lab.yaml", 'fabric_manager: "570.172.08"', 'fabric_manager: "570.172.07"')
    return repo


def test_a_change_making_a_group_incompatible_fails_the_diff(
    lab_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "diff.md"
    code = main(["diff", "--stack", "lab", "--base", "HEAD", "--project-dir", str(lab_repo),
                 "--format", "markdown", "--output", str(output)])
    err = capsys.readouterr().err
    text = output.read_text()
    assert code == 1, err
    assert "FAILED" in err and "(1 blocking)" in err
    assert "AP-VER-001" in text and "h100-train" in text and "570.172.07" in text
