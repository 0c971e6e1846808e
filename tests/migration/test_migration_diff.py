"""`accelplane diff --stack llm-move --base REF`: a pull request moving the migration's weight, in a
throw-away repository holding a copy of this project. The base commit declares the target at 1 %; the
working tree jumps it to 50 %, skipping 5 % and 25 %: the diff shows the two Route 53 records' weights
changing, the declared weights and the cost before → after, and fails (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.diff.migration_diff import step_problem
from tests.diff.git_project import copy_project, edit, init_repository

STEPS = [1, 5, 25, 50, 100]


@pytest.mark.parametrize(("before", "after"), [(0, 0), (0, 1), (1, 5), (25, 50), (50, 100), (25, 0), (100, 0)])
def test_one_step_forward_back_to_zero_or_no_move_passes(before: int, after: int) -> None:
    assert step_problem(before, after, STEPS) is None


def test_going_back_to_anything_but_zero_is_refused() -> None:
    assert step_problem(50, 25, STEPS) == ("the target's weight goes back from 50% to 25%: a migration goes back "
                                           "only to 0 (`migrate advance` rolls back there, `migrate abort` too)")


def test_a_pull_request_skipping_steps_fails_with_the_records_weights_and_cost(tmp_path: Path, monkeypatch,
                                                                              capsys) -> None:
    repo = copy_project(tmp_path / "repo")
    stack_file = repo / "stacks" / "Pulumi.llm-move.yaml"
    edit(stack_file, "    weight: 0\n", "    weight: 1\n")
    base = init_repository(repo)
    edit(stack_file, "    weight: 1\n", "    weight: 50\n")  # the pull request, not committed
    monkeypatch.chdir(repo)
    capsys.readouterr()
    code = main(["diff", "--stack", "llm-move", "--base", base, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 1, err
    data = json.loads(out)
    assert data["weights"] == {"before": {"prod": 99, "tpu-prod": 1}, "after": {"prod": 50, "tpu-prod": 50}}
    updated = {r["name"]: r["changes"] for r in data["resources"]}
    assert sorted(updated) == ["llm-move-source", "llm-move-target"]
    assert [(c["path"], c["old"], c["new"]) for c in updated["llm-move-target"]] == [
        ("weightedRoutingPolicies[0].weight", 1, 50)]
    # Both ends' service pools (tests/migration/test_migration_cost.py works the prices out): at 1 %,
    # 3 x 1,660.7184 + 577.486 + 8,104.7125 + 7,028 = 20,692.35; at 50 %, 2 x 1,660.7184 + 577.486 +
    # 2 x 8,104.7125 + 7,028 = 27,136.34.
    assert data["cost"]["overlap_monthly_before"] == pytest.approx(20692.35, abs=0.01)
    assert data["cost"]["overlap_monthly_after"] == pytest.approx(27136.34, abs=0.01)
    assert data["step_problem"] == ("the target's weight moves from 1% to 50%, skipping 5%, 25%: one step at a "
                                    "time, each judged by the gates (`accelplane migrate advance`)")
