"""A broken state export or plan is refused naming the file (exit 2) or judged (0/1): never a traceback.

Seeds: the committed `pulumi stack export` fixture (tests/check/fixtures/bad-stack-export.json), the
dev stack's `accelplane preview --json` graph, and the same graph in the `pulumi preview --json`
shape (`steps[].newState`). Mutations reach the documents' structure and, mostly, the resource
properties every rule reads, so a rule meeting a value of the wrong type is exercised too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelplane.engine.graph import OfflineGraph
from tests.support.cli_contract import ANY_VERDICT, run_and_check
from tests.support.fuzz_settings import fuzz_settings
from tests.support.mutations import MOSTLY_LEAVES, mutated_document
from tests.support.stack_files import ROOT, STACKS_DIR

STATE_EXPORT = json.loads((ROOT / "tests" / "check" / "fixtures" / "bad-stack-export.json").read_text())
FORMATS = ("table", "json", "sarif", "junit", "markdown")


def pulumi_preview_json(offline: dict[str, Any]) -> dict[str, Any]:
    """`accelplane preview --json` output rewritten as `pulumi preview --json` writes a first `up`."""
    kept = ("urn", "type", "inputs", "parent", "custom")
    steps = [{"op": "create", "urn": r["urn"], "newState": {k: r[k] for k in kept}} for r in offline["resources"]]
    return {"steps": steps, "changeSummary": {"create": len(steps)}}


@pytest.fixture(scope="module")
def plans(dev_graph: OfflineGraph) -> dict[str, Any]:
    offline = json.loads(json.dumps(dev_graph.to_json()))
    return {"accelplane": offline, "pulumi": pulumi_preview_json(offline)}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-documents")


@st.composite
def check_options(draw: st.DrawFn) -> list[str]:
    options = ["--format", draw(st.sampled_from(FORMATS))]
    if draw(st.booleans()):
        options.append("--strict")
    if draw(st.booleans()):
        options += ["--as-of", draw(st.sampled_from(["2026-01-01", "2030-12-31", "1970-01-01"]))]
    if draw(st.integers(0, 3)) == 0:
        options += ["--stack-file", str(STACKS_DIR / "Pulumi.dev.yaml")]  # environment and waivers from dev
    return options


@fuzz_settings(40)
@given(options=check_options(), draw=st.data())
def test_a_mutated_state_export_is_refused_naming_the_file_or_judged(
    workspace: Path, options: list[str], draw: st.DataObject
) -> None:
    path = workspace / "state.json"
    mutated = mutated_document(STATE_EXPORT, yaml_output=False, depths=MOSTLY_LEAVES)
    path.write_bytes(draw.draw(mutated, label="state export"))
    run_and_check(["check", "--state", str(path), *options], names=[str(path)], expect=ANY_VERDICT)


@fuzz_settings(40)
@given(shape=st.sampled_from(["accelplane", "pulumi"]), options=check_options(), draw=st.data())
def test_a_mutated_plan_is_refused_naming_the_file_or_judged(
    workspace: Path, plans: dict[str, Any], shape: str, options: list[str], draw: st.DataObject
) -> None:
    path = workspace / "plan.json"
    mutated = mutated_document(plans[shape], yaml_output=False, depths=MOSTLY_LEAVES)
    path.write_bytes(draw.draw(mutated, label=f"{shape} plan"))
    run_and_check(["check", "--plan", str(path), *options], names=[str(path)], expect=ANY_VERDICT)
