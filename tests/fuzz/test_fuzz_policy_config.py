"""A broken `--policy-config` file is refused naming the file (exit 2) or applied (0/1): never a traceback.

The seed is a valid config in the CrossGuard `--policy-pack-config` format (`all`, a level string per
rule, `{"enforcementLevel": ...}` objects). `check` judges the committed state export with it;
`diff` reads it after the stack and before the base revision, whose ref names no commit, so it
stops there (exit 2 for `--base`) without spawning a preview.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelplane.rules.registry import RULES
from tests.support.cli_contract import ANY_VERDICT, run_and_check
from tests.support.fuzz_settings import fuzz_settings
from tests.support.mutations import mutated_document
from tests.support.stack_files import ROOT

BAD_STATE = ROOT / "tests" / "check" / "fixtures" / "bad-stack-export.json"
IDS = [rule.id for rule in RULES]
SEED = {
    "all": "advisory",
    IDS[0]: "mandatory",
    IDS[1]: {"enforcementLevel": "disabled"},
    IDS[2]: {"enforcementLevel": "remediate", "properties": {"limit": 3}},
    IDS[3]: {"properties": {}},
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-policy")


@fuzz_settings(80)
@given(content=mutated_document(SEED, yaml_output=False), command=st.sampled_from(["check", "diff"]))
def test_a_mutated_policy_config_is_refused_naming_the_file_or_applied(
    workspace: Path, content: bytes, command: str
) -> None:
    path = workspace / "policy-config.json"
    path.write_bytes(content)
    if command == "check":
        argv = ["check", "--state", str(BAD_STATE), "--policy-config", str(path)]
        names = [str(path)]
    else:
        argv = ["diff", "--stack", "dev", "--base", "refs/heads/fuzz-no-such-branch", "--policy-config", str(path)]
        names = [str(path), "--base"]
    outcome = run_and_check(argv, names=names, expect=ANY_VERDICT)
    if command == "diff":
        assert outcome.code == 2, f"diff got past its --base check: {outcome.err}"
