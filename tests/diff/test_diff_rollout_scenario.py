"""`accelplane diff` on a rollout, through git and both revisions' own offline engine runs: the rollout
section reads each revision's `accelplane:k8s:InferenceService` component from its graph.

One repository, two stacks of this test's own (`rollout_stacks.py`), committed as the base; the working
tree then moves their weights:
- `canary`: the Inferentia2 canary's step 5 → 25 (the baseline gives 20): one step, exit 0;
- `canary3`: both canaries grow at once (inf2 5 → 10, cuda13 5 → 10): AP-RO-004, exit 1. Its cuda13
  backend's image needs CUDA 13.0 on the L40S pool's R570 driver: the verdict column says incompatible
  (AP-RO-001 holds on both sides, so it is not introduced by this change).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accelplane.diff import render
from accelplane.diff.plan_diff import PlanDiff
from tests.diff.git_project import copy_project, init_repository
from tests.diff.rollout_stacks import write_canary_stack


@pytest.fixture(scope="module")
def rollout_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    repo = copy_project(tmp_path_factory.mktemp("diff-rollout") / "repo")
    stacks = repo / "stacks"
    write_canary_stack(stacks, "canary", {"l40s": 95, "inf2": 5})
    write_canary_stack(stacks, "canary3", {"l40s": 90, "inf2": 5, "cuda13": 5})
    init_repository(repo)
    # Uncommitted: the diff compares the working tree with HEAD.
    write_canary_stack(stacks, "canary", {"l40s": 75, "inf2": 25})
    write_canary_stack(stacks, "canary3", {"l40s": 80, "inf2": 10, "cuda13": 10})
    yield repo


Run = tuple[int, PlanDiff, dict[str, Any]]


def _run(repo: Path, stack: str, tmp_path: Path) -> Run:
    from accelplane.cli import main

    seen: list[PlanDiff] = []
    output = tmp_path / f"{stack}.json"
    with pytest.MonkeyPatch.context() as patch:
        import accelplane.diff as diff_package

        real = diff_package.diff_stack

        def spy(*args: Any, **kwargs: Any) -> PlanDiff:
            seen.append(real(*args, **kwargs))
            return seen[-1]

        patch.setattr(diff_package, "diff_stack", spy)
        code = main(["diff", "--stack", stack, "--base", "HEAD", "--project-dir", str(repo), "--format", "json",
                     "--output", str(output), "--as-of", "2026-06-01"])
    return code, seen[0], json.loads(output.read_text())


@pytest.fixture(scope="module")
def canary(rollout_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run(rollout_repo, "canary", tmp_path_factory.mktemp("canary"))


@pytest.fixture(scope="module")
def canary3(rollout_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run(rollout_repo, "canary3", tmp_path_factory.mktemp("canary3"))


def test_moving_the_canary_one_step_is_shown_and_passes(canary: Run) -> None:
    code, diff, data = canary
    assert code == 0, [(i.rule, i.name, i.message) for i in diff.blocking]
    [service] = diff.rollout
    assert (service.service, service.status, service.baseline, service.canary, service.problems) == (
        "serve", "changed", "l40s", "inf2", ())
    assert [(b.name, b.pool[1], b.weight, b.verdict) for b in service.backends] == [
        ("l40s", "infer-l40s", (95, 75), "compatible"), ("inf2", "infer-inf2", (5, 25), "compatible")]
    assert [i.rule for i in diff.introduced if i.rule.startswith("AP-RO")] == []
    table = render(diff, "table")
    assert """\
Rollout:
  ~ service serve (baseline l40s, canary inf2)
      l40s  infer-l40s  weight 95% → 75%  matrix: compatible
      inf2  infer-inf2  weight 5% → 25%   matrix: compatible
""" in table
    assert table.rstrip().splitlines()[-1] == "PASSED: the change introduces no blocking finding"
    [rollout] = data["rollout"]
    assert rollout["name"] == "acme-ml-svc-serve" and rollout["problems"] == []
    assert [(b["name"], b["weight"], b["verdict"]) for b in rollout["backends"]] == [
        ("l40s", {"old": 95, "new": 75}, "compatible"), ("inf2", {"old": 5, "new": 25}, "compatible")]
    assert data["summary"]["passed"] is True and data["summary"]["rollout_changes"] == 1


def test_two_canaries_growing_at_once_fail_the_diff(canary3: Run) -> None:
    code, diff, data = canary3
    assert code == 1
    assert [(i.rule, i.name, i.enforcement) for i in diff.blocking] == [
        ("AP-RO-004", "acme-ml-svc-serve", "mandatory")]
    [service] = diff.rollout
    assert service.problems == ("3 backends change weight (cuda13, inf2, l40s); a step changes one pair",)
    introduced = data["findings"]["introduced"]
    assert [(f["rule"], f["blocking"]) for f in introduced if f["rule"].startswith("AP-RO")] == [("AP-RO-004", True)]
    assert introduced[0]["message"] == (
        "service serve: l40s 90% → 80%, inf2 5% → 10%, cuda13 5% → 10% is not one rollout step: 3 backends change "
        "weight (cuda13, inf2, l40s); a step changes one pair")
    table = render(diff, "table")
    assert "FAILED: the change introduces 1 blocking finding (mandatory)" in table
    assert "  BLOCKING  high     AP-RO-004   acme-ml-svc-serve: service serve:" in table


def test_the_matrix_verdict_column_names_the_backend_its_pool_cannot_run(canary3: Run) -> None:
    _, diff, data = canary3
    [service] = diff.rollout
    verdicts = {b.name: b.verdict for b in service.backends}
    assert verdicts == {"l40s": "compatible", "inf2": "compatible", "cuda13": "incompatible"}
    cuda13 = next(b for b in service.backends if b.name == "cuda13")
    assert cuda13.verdict_findings[0][:2] == ("nvidia.cuda-driver", "incompatible")
    assert cuda13.verdict_findings[0][2].startswith("cuda 13.0 with driver 570.172.08: ")
    table = render(diff, "table")
    assert "      cuda13  infer-l40s  weight 5% → 10%   matrix: incompatible" in table
    markdown = render(diff, "markdown")
    assert "| `cuda13` | `infer-l40s` | **5% → 10%** | ❌ incompatible |" in markdown
    assert "❌ `AP-RO-004` service `serve`: not one rollout step: 3 backends change weight" in markdown
    # AP-RO-001 finds the same problem at the base: the change does not introduce it.
    assert not any(i.rule == "AP-RO-001" for i in diff.introduced)
    json_row = next(b for b in data["rollout"][0]["backends"] if b["name"] == "cuda13")
    assert json_row["verdict"] == "incompatible"
