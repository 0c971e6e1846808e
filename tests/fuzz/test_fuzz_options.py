"""Malformed options are refused naming the option (exit 2) on every command: never a traceback.

Option values are drawn from odd text (path characters, `..`, control characters, non-ASCII, empty,
option-looking strings) and from plausible values, so both the parser and the first checks behind
it run. Values are passed as `--option=value`, as a shell would pass them, so a value that looks
like an option stays a value. What is written goes under a temporary directory; commands that
would reach a cloud, git history or Ansible are always given one input that stops them first (a
stack that does not exist, a ref that names no commit, a `--limit` that names no host), and the
test asserts they stopped there.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from accelplane.config.project import short_stack_name
from accelplane.errors import InputError
from accelplane.input_files import is_file
from accelplane.matrix import FRAMEWORKS, accelerators
from tests.support.cli_contract import ANY_VERDICT, run_and_check
from tests.support.fuzz_settings import fuzz_settings
from tests.support.mutations import DATE_LIKE, TRICKY_TEXT
from tests.support.stack_files import ROOT, STACKS_DIR

BAD_STATE = ROOT / "tests" / "check" / "fixtures" / "bad-stack-export.json"
LAB = STACKS_DIR / "Pulumi.lab.yaml"
NO_HOST = "fuzz-no-such-host"

ODD = st.one_of(
    st.sampled_from([t for t in TRICKY_TEXT if "\x00" not in t]),
    st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)), max_size=30),
    st.sampled_from(["-h", "--help", "--", "-", ".", "..", "../..", "/", "//", "~", "a/b/c/d", "org/project/stack/x",
                     "dev/../prod", "dev\n", " dev", "DEV", "dev.yaml", "Pulumi.dev.yaml", "x" * 300]),
)
DATES = st.one_of(st.sampled_from(DATE_LIKE), st.sampled_from(["2026-12-01", "today", "2026/12/01", "12/01/2026"]), ODD)


def _is_a_stack_here(name: str) -> bool:
    try:
        return is_file(STACKS_DIR / f"Pulumi.{short_stack_name(name)}.yaml")
    except InputError:
        return False


def _names_a_commit(ref: str) -> bool:
    result = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
                            cwd=ROOT, capture_output=True, check=False)
    return result.returncode == 0


def _options(argv: list[str]) -> list[str]:
    """What a refusal may name: each option given, or the file an option named (a policy config
    that is not one is refused for its content, naming the file)."""
    given = [arg.split("=", 1) for arg in argv if arg.startswith("--")]
    return [part[0] for part in given] + [part[1] for part in given if len(part) == 2 and is_file(Path(part[1]))]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz-options")
    (root / "a-file").write_text("x")
    return root


@st.composite
def output_paths(draw: st.DrawFn, workspace: Path) -> str:
    """Where a report or schema may be written: inside `workspace`, or somewhere writing fails."""
    name = draw(ODD).replace("/", "_") or "_"
    return draw(st.sampled_from([
        str(workspace / name[:200]), str(workspace), str(workspace / "a-file" / "below"), "/dev/full",
        str(workspace / "new-dir" / "x.json"), str(workspace / ("n" * 300)),
    ]))


@fuzz_settings(60)
@given(draw=st.data())
def test_malformed_check_options_are_refused_naming_the_option(workspace: Path, draw: st.DataObject) -> None:
    argv = ["check", f"--state={BAD_STATE}"]
    for option, values in (
        ("--format", st.one_of(st.sampled_from(["json", "sarif", "junit", "markdown", "table"]), ODD)),
        ("--as-of", DATES),
        ("--output", output_paths(workspace)),
        ("--policy-config", st.one_of(ODD, st.sampled_from([str(workspace), "/dev/null", str(BAD_STATE)]))),
        ("--stack", ODD),
    ):
        if draw.draw(st.booleans(), label=f"give {option}"):
            argv.append(f"{option}={draw.draw(values, label=option)}")
    run_and_check(argv, names=_options(argv), expect=ANY_VERDICT)


@fuzz_settings(60)
@given(draw=st.data())
def test_malformed_matrix_options_are_refused_naming_the_option(draw: st.DataObject) -> None:
    known = sorted(accelerators())
    command = draw.draw(st.sampled_from(["resolve", "show"]))
    argv = ["matrix", command, f"--accelerator={draw.draw(st.one_of(st.sampled_from(known), ODD))}"]
    options = {"--as-of": DATES}
    if command == "resolve":
        options |= {"--framework": st.one_of(st.sampled_from(FRAMEWORKS), ODD),
                    "--os": st.one_of(st.sampled_from(["ubuntu-22.04", "ubuntu-24.04", "rhel-9.4"]), ODD),
                    "--python": st.one_of(st.sampled_from(["3.10", "3.11", "3.12", "3.13"]), ODD)}
    for option, values in options.items():
        if draw.draw(st.booleans(), label=f"give {option}"):
            argv.append(f"{option}={draw.draw(values, label=option)}")
    run_and_check(argv, names=_options(argv), expect=ANY_VERDICT)


@fuzz_settings(15)
@given(draw=st.data())
def test_an_unwritable_schema_output_is_refused_naming_the_option(workspace: Path, draw: st.DataObject) -> None:
    argv = ["schema", f"--output={draw.draw(output_paths(workspace))}"]
    run_and_check(argv, names=["--output"], expect=(0, 2))


@fuzz_settings(40)
@given(stack=ODD, draw=st.data())
def test_a_stack_name_with_path_characters_is_refused_naming_the_option(stack: str, draw: st.DataObject) -> None:
    assume(not _is_a_stack_here(stack))
    command = draw.draw(st.sampled_from([["preview"], ["check"], ["nodes", "validate"], ["diff", "--base=HEAD"],
                                         ["verify"]]))
    run_and_check([*command, f"--stack={stack}"], names=["--stack"], expect=(2,))


@fuzz_settings(40)
@given(stack=ODD, draw=st.data())
def test_malformed_verify_options_are_refused_before_any_aws_call(stack: str, draw: st.DataObject) -> None:
    # The stack never exists here: whatever the options, verify stops before a client is made.
    assume(not _is_a_stack_here(stack))
    argv = ["verify", f"--stack={stack}"]
    for option, values in (
        ("--endpoint-url", st.one_of(ODD, st.sampled_from(["http://127.0.0.1:1", "ftp://x", "http://", "https://a"]))),
        ("--probes", st.one_of(ODD, st.sampled_from(["-1", "0", "5", "1e9", "99999999999999999999999"]))),
        ("--timeout", st.one_of(ODD, st.sampled_from(["0", "-1", "nan", "inf", "2.5", "1e400"]))),
        ("--probe-url", st.one_of(ODD, st.sampled_from(["https://example.invalid/healthz", "javascript:x"]))),
        ("--ca-bundle", st.one_of(ODD, st.sampled_from(["/dev/null", str(LAB), "/", "/dev/zero"]))),
        ("--checkpoint-max-age", st.one_of(ODD, st.sampled_from(["90m", "6h", "1d", "0s", "-1h", "9" * 40 + "d"]))),
        ("--checkpoint-drill", st.one_of(ODD, st.sampled_from(["download", "checksum", "off"]))),
        ("--concurrency", st.one_of(ODD, st.sampled_from(["0", "-5", "8", "100000"]))),
        ("--format", ODD),
    ):
        if draw.draw(st.booleans(), label=f"give {option}"):
            argv.append(f"{option}={draw.draw(values, label=option)}")
    run_and_check(argv, names=_options(argv), expect=(2,))


@fuzz_settings(40)
@given(limit=ODD, draw=st.data())
def test_a_malformed_nodes_limit_is_refused_before_ansible_starts(limit: str, draw: st.DataObject) -> None:
    action = draw.draw(st.sampled_from(["apply", "validate", "upgrade"]))
    argv = ["nodes", action, f"--stack-file={LAB}", f"--limit={limit}:{NO_HOST}"]
    if draw.draw(st.booleans()):
        argv.append(f"--forks={draw.draw(st.one_of(ODD, st.sampled_from(['0', '-1', '4'])))}")
    argv += ["--check"] * draw.draw(st.booleans())
    run_and_check(argv, names=[str(LAB), *_options(argv)], expect=(2,))


@fuzz_settings(40)
@given(base=ODD, draw=st.data())
def test_a_malformed_diff_base_is_refused_before_any_preview(workspace: Path, base: str, draw: st.DataObject) -> None:
    assume(not _names_a_commit(base))
    argv = ["diff", "--stack=dev", f"--base={base}"]
    for option, values in (("--format", st.one_of(st.sampled_from(["table", "json", "markdown"]), ODD)),
                           ("--as-of", DATES),
                           ("--project-dir", st.sampled_from([".", "/", str(workspace), "tests", "no-such-dir"]))):
        if draw.draw(st.booleans(), label=f"give {option}"):
            argv.append(f"{option}={draw.draw(values, label=option)}")
    run_and_check(argv, names=_options(argv), expect=(2,))
