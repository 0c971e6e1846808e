"""`-` as an output file is standard output, as in every Unix tool.

Seen: `accelplane preview --stack dev --json -` and `accelplane check --stack dev --output -` wrote a
file named `-` in the working directory; `preview --json - | jq` got the plan's tree, not JSON.
Now what the option names goes to standard output alone (so it pipes into `jq`), the words a person
reads go to standard error, and no file named `-` appears.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelplane.cli import main


@pytest.fixture(autouse=True)
def in_empty_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _no_dash_file(directory: Path) -> None:
    assert not (directory / "-").exists(), "a file named '-' was written"


def test_preview_json_dash_prints_only_the_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preview", "--stack", "dev", "--json", "-"]) == 0
    captured = capsys.readouterr()
    graph = json.loads(captured.out)  # nothing but the JSON document
    assert graph["resources"] and all("urn" in resource for resource in graph["resources"])
    assert "Version matrix" in captured.err or "compatible" in captured.err  # the verdicts went to stderr
    assert "wrote" not in captured.err
    _no_dash_file(tmp_path)


def test_preview_json_to_a_file_still_prints_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preview", "--stack", "dev", "--json", "graph.json"]) == 0
    captured = capsys.readouterr()
    assert json.loads((tmp_path / "graph.json").read_text())["resources"]
    assert "compatible" in captured.out and "wrote graph.json" in captured.err


@pytest.mark.parametrize("argv", [
    ["check", "--stack", "dev", "--format", "json"],
    ["cost", "--stack", "dev", "--format", "json"],
])
def test_output_dash_writes_the_report_to_standard_output(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*argv, "--output", "-"])
    captured = capsys.readouterr()
    assert code == 0, captured.err  # the dev stack passes its checks and has no budget
    json.loads(captured.out)
    assert "wrote" not in captured.err
    _no_dash_file(tmp_path)


def test_schema_output_dash_prints_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--output", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["$schema"].startswith("https://json-schema.org/")
    _no_dash_file(tmp_path)
