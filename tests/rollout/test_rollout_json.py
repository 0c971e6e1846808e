"""`rollout advance|abort --format json`: one JSON object on standard output with the decision, the
weights before and after, what was written and applied, and the exit code; no text lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.rollout.conftest import write_stack

NOW = "2026-12-03T06:00:00Z"


def test_abort_as_json_says_what_it_wrote(tmp_path: Path, rollout: Any) -> None:
    path = write_stack(tmp_path)
    result = rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW, "--format", "json")
    assert result.code == 0, result.err
    said = json.loads(result.out)
    assert said["action"] == "abort" and said["command"] == "abort" and said["exit_code"] == 0
    assert said["written"] is True and said["file"] == str(path) and said["since"] == NOW
    assert said["weights"][said["baseline"]] == 100
    assert sum(said["weights"].values()) == 100 and said["lines"]
    assert said["applied_live"] is None


def test_advance_as_json_on_a_rollout_not_started_holds_and_writes_nothing(tmp_path: Path, rollout: Any) -> None:
    path = write_stack(tmp_path)
    rollout("abort", "--stack-file", path, "--service", "server", "--now", NOW)
    before = path.read_text()
    result = rollout("advance", "--stack-file", path, "--service", "server", "--now", NOW, "--format", "json")
    assert result.code == 0, result.err
    said = json.loads(result.out)
    assert (said["action"], said["written"], said["exit_code"]) == ("hold", False, 0)
    assert "takes 0%" in said["reason"]
    assert path.read_text() == before
