"""A broken stack file is refused with a message naming it (exit 2) or judged (0/1): never a traceback.

The example stacks (dev, prod, lab) are mutated (tests/support/mutations.py) and handed to every
command that reads a stack file. Most mutations are refused at validation in milliseconds; those
that still validate run further: `nodes` to its inventory and `--limit` check (the limit names no
host, so Ansible never starts), `diff` to its `--base` check (the ref names no commit, so no preview
is spawned), `check` and `preview` through the whole program under mocks (1-3 s, hence their
smaller budget). `verify` is given only files the loader refuses: a valid one would reach AWS.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelplane.config.loader import load_stack_file
from accelplane.config.yaml_source import parse_yaml
from accelplane.errors import InputError
from tests.support.cli_contract import ANY_VERDICT, run_and_check
from tests.support.fuzz_settings import fuzz_settings
from tests.support.mutations import GENTLE, TRICKY_TEXT, dump_yaml, mutate_data, mutated_document
from tests.support.stack_files import stack_text

STACKS = {name: parse_yaml(stack_text(name), f"Pulumi.{name}.yaml").data
          for name in ("dev", "prod", "lab", "tpu-dev", "tpu-prod")}
NO_HOST = "fuzz-no-such-host"
NO_REF = "refs/heads/fuzz-no-such-branch"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project directory in a git repository of its own: stack files are written into it."""
    root = tmp_path_factory.mktemp("fuzz-project")
    (root / "Pulumi.yaml").write_text("name: accelplane\nruntime: python\n")
    subprocess.run(["git", "init", "--quiet", str(root)], check=True)
    yield root


def _write(project: Path, stack: str, content: bytes) -> Path:
    path = project / f"Pulumi.{stack}.yaml"
    path.write_bytes(content)
    return path


def _stack_file_names(path: Path) -> list[str]:
    # A broken file is named by its path; a valid one may be refused for the option (--limit, --base).
    return [str(path), "--limit", "--base"]


@fuzz_settings(200)
@given(stack=st.sampled_from(sorted(STACKS)), draw=st.data())
def test_a_mutated_stack_file_is_refused_naming_the_file_by_commands_that_load_it(
    project: Path, stack: str, draw: st.DataObject
) -> None:
    path = _write(project, stack, draw.draw(mutated_document(STACKS[stack]), label="stack file"))
    command = draw.draw(st.sampled_from(["nodes", "diff", "verify"]), label="command")
    if command == "verify":
        try:
            load_stack_file(path)
        except InputError:
            argv = ["verify", "--stack-file", str(path), "--endpoint-url", "http://127.0.0.1:9"]
        else:
            return  # valid: verify would go on to AWS; the loading it shares with nodes and diff passed
    elif command == "nodes":
        action = draw.draw(st.sampled_from(["apply", "validate", "upgrade"]))
        argv = ["nodes", action, "--stack-file", str(path), "--limit", f"h100-train:{NO_HOST}", "--check"]
    else:
        argv = ["diff", "--stack-file", str(path), "--base", NO_REF]
    run_and_check(argv, names=_stack_file_names(path), expect=(2,))


@fuzz_settings(30)
@given(stack=st.sampled_from(["dev", "lab", "prod", "tpu-dev", "tpu-prod"]), gentle=st.booleans(), draw=st.data())
def test_a_mutated_stack_file_is_refused_or_judged_by_check_and_preview(
    project: Path, stack: str, gentle: bool, draw: st.DataObject
) -> None:
    # Gentle mutations often still validate, so the program, the rules and the reports meet them.
    content = (dump_yaml(draw.draw(mutate_data(STACKS[stack], max_ops=2, ops=GENTLE), label="stack data")).encode()
               if gentle else draw.draw(mutated_document(STACKS[stack]), label="stack file"))
    path = _write(project, stack, content)
    command = draw.draw(st.sampled_from(["check", "preview"]), label="command")
    run_and_check([command, "--stack-file", str(path)], names=[str(path)], expect=ANY_VERDICT)


@fuzz_settings(10)
@given(name=st.one_of(st.sampled_from(TRICKY_TEXT), st.text(min_size=1, max_size=30),
                     st.sampled_from(["l\udcffb", "\udc80", "a::b", "urn:pulumi:x", "..", "."]),
                     st.from_regex(r"[A-Za-z0-9_.-]{1,12}", fullmatch=True)))
def test_a_stack_named_with_path_characters_by_its_file_name_is_refused_or_judged(
    project: Path, name: str
) -> None:
    # `--stack-file Pulumi.<name>.yaml` takes the stack's name from the file name; it ends up in URNs.
    # ("\udcff": a byte that is not UTF-8 in the name, as os.fsdecode gives it.)
    name = name.replace("/", "_").replace("\x00", "_")
    if len(os.fsencode(f"Pulumi.{name}.yaml")) > 255:
        name = name[:40]
    directory = project / "named"
    directory.mkdir(exist_ok=True)
    path = directory / f"Pulumi.{name}.yaml"
    path.write_text(stack_text("lab"))
    run_and_check(["check", "--stack-file", str(path)], names=[str(path)], expect=ANY_VERDICT)
    path.unlink()
