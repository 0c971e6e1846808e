"""A broken project file (Pulumi.yaml) is refused naming it (exit 2) or the stack is judged: never a
traceback.

Every command reads the project file: `--stack NAME` finds the project (and its `stackConfigDir`)
from the current directory upwards, `--stack-file PATH` takes the project's name for the URNs from
the `Pulumi.yaml` above the file. The seed is this repository's own `Pulumi.yaml`; the lab stack sits
in `stacks/` below it. `nodes` stops at its `--limit` (it names no host) and `diff` at its `--base`
(it names no commit), so neither Ansible nor a preview starts; `check` runs the small lab program.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelplane.config.yaml_source import parse_yaml
from tests.support.cli_contract import ANY_VERDICT, run_and_check
from tests.support.fuzz_settings import fuzz_settings
from tests.support.mutations import mutated_document
from tests.support.stack_files import ROOT, stack_text

PROJECT = parse_yaml((ROOT / "Pulumi.yaml").read_text(), "Pulumi.yaml").data
NO_HOST = "fuzz-no-such-host"
NO_REF = "refs/heads/fuzz-no-such-branch"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-project-file")
    (root / "stacks").mkdir()
    (root / "stacks" / "Pulumi.lab.yaml").write_text(stack_text("lab"))
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    return root


@fuzz_settings(60)
@given(content=mutated_document(PROJECT), draw=st.data())
def test_a_mutated_project_file_is_refused_naming_it_or_the_stack_is_judged(
    project: Path, content: bytes, draw: st.DataObject
) -> None:
    marker = project / "Pulumi.yaml"
    marker.write_bytes(content)
    stack_file = project / "stacks" / "Pulumi.lab.yaml"
    argv = draw.draw(st.sampled_from([
        ["nodes", "validate", "--stack", "lab", f"--limit={NO_HOST}"],
        ["nodes", "validate", f"--stack-file={stack_file}", f"--limit={NO_HOST}"],
        ["diff", "--stack", "lab", f"--base={NO_REF}"],
        ["diff", f"--stack-file={stack_file}", f"--base={NO_REF}"],
        ["check", f"--stack-file={stack_file}"],
    ]))
    names = [str(marker), str(stack_file), str(project), "--limit", "--base", "--stack"]
    here = Path.cwd()
    os.chdir(project)  # `--stack lab` is found from the current directory
    try:
        outcome = run_and_check(argv, names=names, expect=ANY_VERDICT)
    finally:
        os.chdir(here)
    if argv[0] != "check":
        assert outcome.code == 2, f"{argv} got past its --limit/--base check: {outcome.err}"
