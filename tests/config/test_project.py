"""`--stack NAME` finds the project the way the Pulumi CLI does (Pulumi.yaml from the current
directory upwards, its stackConfigDir), also when accelplane is an installed, non-editable
package; `--stack-file PATH` takes a stack file from anywhere; stack names cannot be paths."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.config.project import find_project, short_stack_name, stack_name_of_file
from accelplane.errors import InputError
from tests.support.stack_files import ROOT, stack_text


def _project(root: Path, *, stack_dir: str = "stacks") -> Path:
    (root / stack_dir).mkdir(parents=True)
    (root / "Pulumi.yaml").write_text(f"name: my-platform\nruntime: python\nstackConfigDir: {stack_dir}\n")
    (root / stack_dir / "Pulumi.dev.yaml").write_text(stack_text("dev"))
    (root / "deep" / "er").mkdir(parents=True)
    return root


def test_stack_is_found_from_a_subdirectory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path / "p", stack_dir="config/stacks")
    monkeypatch.chdir(project / "deep" / "er")
    found = find_project()
    assert (found.root, found.name, found.stacks_dir) == (project, "my-platform", project / "config" / "stacks")
    assert main(["check", "--stack", "dev", "--format", "json"]) == 0
    assert '"subject": "stack dev"' in capsys.readouterr().out


def test_the_project_name_is_the_urn_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path / "p")
    monkeypatch.chdir(project)
    graph = tmp_path / "graph.json"
    assert main(["preview", "--stack", "dev", "--json", str(graph)]) == 0
    assert '"urn:pulumi:dev::my-platform::' in graph.read_text()


def test_stack_file_from_anywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "elsewhere" / "Pulumi.qa.yaml"
    path.parent.mkdir()
    path.write_text(stack_text("dev"))
    assert main(["check", "--stack-file", str(path), "--format", "json"]) == 0
    assert '"subject": "stack qa"' in capsys.readouterr().out


@pytest.mark.parametrize("name", ["../dev", "a/../../b", "/etc/passwd", "dev/..", "", "a b", "x/y/z/w"])
def test_a_stack_name_is_never_a_path(name: str) -> None:
    with pytest.raises(InputError, match="is not a stack name"):
        short_stack_name(name)


@pytest.mark.parametrize(("name", "short"), [("prod", "prod"), ("acme/prod", "prod"), ("acme/ml/prod", "prod")])
def test_fully_qualified_stack_names_select_the_short_name(name: str, short: str) -> None:
    assert short_stack_name(name) == short


def test_stack_names_of_files() -> None:
    assert stack_name_of_file(Path("Pulumi.prod.yaml")) == "prod"
    assert stack_name_of_file(Path("Pulumi.eu.prod.yml")) == "eu.prod"
    assert stack_name_of_file(Path("platform.yaml")) == "platform"


@pytest.mark.parametrize("name", ["Pulumi.l\udcffb.yaml", "Pulumi.a::b.yaml", "Pulumi..yaml", "Pulumi...yaml",
                                  "my stack.yaml", "Pulumi.dev\n.yaml"])
def test_a_file_name_that_gives_no_stack_name_is_refused_naming_the_file(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by tests/fuzz: a name that is not UTF-8 ran into the Pulumi runtime and ended in a
    # UnicodeEncodeError traceback; `a::b` made URNs no engine could parse.
    path = tmp_path / name
    path.write_text(stack_text("lab"))
    assert main(["check", "--stack-file", str(path)]) == 2
    err = capsys.readouterr().err
    shown = str(path).encode("utf-8", "backslashreplace").decode()  # a name that is not UTF-8, escaped
    assert err.startswith(f"error: {shown}: --stack-file: the file's name gives the stack name")
    assert "Traceback" not in err


def test_a_stack_name_with_a_trailing_newline_is_refused() -> None:
    with pytest.raises(InputError, match="is not a stack name"):
        short_stack_name("dev\n")


def test_outside_any_project_the_message_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="give the stack file with --stack-file PATH"):
        find_project(fallback=False)


def test_an_installed_non_editable_package_reads_the_current_project(tmp_path: Path) -> None:
    """A non-editable install is the package's files in site-packages and no checkout around them: a
    copy of the package in a directory of its own is exactly that (pip copies the same files)."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "accelplane", site / "accelplane", ignore=shutil.ignore_patterns("__pycache__"))
    project = _project(tmp_path / "project")
    dev = project / "stacks" / "Pulumi.dev.yaml"
    dev.write_text(dev.read_text().replace("name: acme-ml-dev", "name: copied-platform"))
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([sys.executable, "-m", "accelplane", "preview", "--stack", "dev"],
                            cwd=project / "deep", env=env, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert "copied-platform-eks" in result.stdout and "acme-ml-dev" not in result.stdout
    imported = subprocess.run([sys.executable, "-c", "import accelplane; print(accelplane.__file__)"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, check=True).stdout
    assert imported.startswith(str(site))
    outside = subprocess.run([sys.executable, "-m", "accelplane", "check", "--stack", "dev"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300, check=False)
    assert outside.returncode == 2 and "no Pulumi.yaml in" in outside.stderr and "Traceback" not in outside.stderr
