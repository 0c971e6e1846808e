"""A budget the tool cannot price every line of is not passed.

Seen: prod's L40S pool moved to `p5.4xlarge` (one H100, a type the price table lacks) with a budget of
$500,000: `accelplane cost` showed `no price` for the pool and a TOTAL that read complete, and
`accelplane check` printed `PASSED: 0 blocking findings`. Now the TOTAL says it is a lower bound,
the budget line says it cannot judge, and AP-COST-001 (mandatory) fails naming the unpriced line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from accelplane.cli import main
from accelplane.config.project import find_project

BUDGET = {"monthly_usd": 500000, "notify": ["finops@example.com"]}


def _prod(tmp_path: Path, *, unpriced_pool: bool) -> Path:
    document = yaml.safe_load(Path(find_project(Path(__file__)).stack_file("prod")).read_text())
    platform = document["config"]["accelplane:platform"]
    platform["budget"] = BUDGET
    if unpriced_pool:
        [pool] = [p for p in platform["node_pools"] if p["name"] == "infer-l40s"]
        pool.update(accelerator="nvidia-h100", instance_type="p5.4xlarge")
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def test_check_fails_a_budget_it_cannot_price(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stack = _prod(tmp_path, unpriced_pool=True)
    assert main(["check", "--stack-file", str(stack), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    [finding] = [f for f in report["findings"] if f["rule"] == "AP-COST-001"]
    assert finding["enforcement"] == "mandatory" and report["summary"]["blocking"] == 1
    assert "cannot judge the $500,000.00 budget: 1 line(s) have no price" in finding["message"]
    assert "no price for acme-ml-infer-l40s-ng" in finding["message"]


def test_cost_says_the_total_is_a_lower_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stack = _prod(tmp_path, unpriced_pool=True)
    assert main(["cost", "--stack-file", str(stack)]) == 0
    text = capsys.readouterr().out
    assert "TOTAL (at least: 1 line(s) without a price)" in text
    assert "— CANNOT JUDGE" in text
    assert main(["cost", "--stack-file", str(stack), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["total_is_lower_bound"] is True and document["unpriced"] == ["acme-ml-infer-l40s-ng"]
    assert document["budget"]["cannot_judge"] is True and document["budget"]["unpriced_lines"] == 1


def test_a_fully_priced_stack_is_judged_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stack = _prod(tmp_path, unpriced_pool=False)
    assert main(["cost", "--stack-file", str(stack), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["total_is_lower_bound"] is False and document["budget"]["cannot_judge"] is False
    assert main(["check", "--stack-file", str(stack), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # prod at maximum size costs about $250,700 a month: within $500,000, nothing to say.
    assert not [f for f in report["findings"] if f["rule"] == "AP-COST-001"]
