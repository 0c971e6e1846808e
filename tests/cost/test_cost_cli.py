"""`accelplane cost` and the budget in `check`: formats agreeing, the budget failing, warning, passing
and waived, and bad input refused with file, line and field (exit 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cost.conftest import variant
from tests.support.cli_contract import run_cli
from tests.support.stack_files import stack_text

BUDGET_AT = "    software_profiles:\n"


def _with_budget(tmp_path: Path, budget: str, stack: str = "prod") -> Path:
    """The stack file with the budget, written as is (not loaded: it may be bad input)."""
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(stack_text(stack).replace(BUDGET_AT, f"    budget: {budget}\n{BUDGET_AT}", 1))
    return path


def _raw_variant(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    text = stack_text("prod")
    for old, new in edits:
        text = text.replace(old, new)
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(text)
    return path


def test_formats_say_the_same_totals() -> None:
    text = run_cli(["cost", "--stack", "prod"])
    data = json.loads(run_cli(["cost", "--stack", "prod", "--format", "json"]).out)
    markdown = run_cli(["cost", "--stack", "prod", "--format", "markdown"]).out
    assert data["total"] == {"minimum": 5017.67, "desired": 102971.79, "maximum": 250711.06}
    assert data["currency"] == "USD" and data["prices_retrieved"] == "2026-11-30"
    assert "TOTAL" in text.out and "$250,711.06" in text.out
    assert "| **Total** | | | | **$5,017.67** | **$102,971.79** | **$250,711.06** | |" in markdown
    assert {s["key"] for s in data["sources"]} >= {"ec2_on_demand", "eks", "vpc"}


def test_preview_prints_the_monthly_range() -> None:
    outcome = run_cli(["preview", "--stack", "prod"])
    assert ("Monthly cost (USD, list prices of 2026-11-30): $5,017.67 at minimum, $102,971.79 at desired, "
            "$250,711.06 at maximum pool sizes") in outcome.out


def test_a_budget_below_the_maximum_fails_check(tmp_path: Path) -> None:
    path = _with_budget(tmp_path, "{monthly_usd: 200000}")
    outcome = run_cli(["check", "--stack-file", str(path)])
    assert outcome.code == 1
    assert "AP-COST-001" in outcome.out and "$250,711.06 a month, 125% of its $200,000.00 budget" in outcome.out
    cost = run_cli(["cost", "--stack-file", str(path)])
    assert "Budget: at maximum pool sizes the stack costs $250,711.06 a month" in cost.out and "OVER" in cost.out


def test_the_same_budget_judged_at_desired_warns_only(tmp_path: Path) -> None:
    path = _with_budget(tmp_path, "{monthly_usd: 120000, judged_at: desired, warn_at: 0.8}")
    outcome = run_cli(["check", "--stack-file", str(path)])
    assert outcome.code == 0, outcome.out
    assert "AP-COST-002" in outcome.out and "86% of its $120,000.00 budget" in outcome.out


def test_a_budget_above_the_maximum_passes(tmp_path: Path) -> None:
    outcome = run_cli(["check", "--stack-file", str(_with_budget(tmp_path, "{monthly_usd: 400000}"))])
    assert outcome.code == 0 and "AP-COST" not in outcome.out


def test_the_budget_finding_is_waivable(tmp_path: Path) -> None:
    waiver = ("    waivers:\n      - {rule: AP-COST-001, resource: acme-ml-budget, reason: quarter-end training burst "
              "approved, owner: finance, expires: 2027-03-31}\n")
    path = variant(tmp_path, (BUDGET_AT, f"    budget: {{monthly_usd: 200000}}\n{waiver}{BUDGET_AT}")).path
    outcome = run_cli(["check", "--stack-file", str(path), "--as-of", "2026-12-05"])
    assert outcome.code == 0, outcome.out
    assert "waived" in outcome.out and "AP-COST-001" in outcome.out


@pytest.mark.parametrize(("budget", "field", "message"), [
    ("{monthly_usd: -5}", "budget.monthly_usd", "greater than 0"),
    ("{monthly_eur: 5000}", "budget.monthly_eur", "unknown key; did you mean monthly_usd?"),
    ("{monthly_usd: 200k}", "budget.monthly_usd", "valid number"),
    ("{monthly_usd: 5000, warn_at: 80}", "budget.warn_at", "less than 1"),
])
def test_a_budget_in_the_wrong_unit_or_negative_is_refused(tmp_path: Path, budget: str, field: str,
                                                          message: str) -> None:
    path = _with_budget(tmp_path, budget)
    line = next(n for n, row in enumerate(path.read_text().splitlines(), 1) if row.startswith("    budget:"))
    outcome = run_cli(["cost", "--stack-file", str(path)])
    assert outcome.code == 2 and "Traceback" not in outcome.err
    assert f"{path}:{line}: accelplane:platform.{field}:" in outcome.err and message in outcome.err


def test_a_gcp_budget_needs_its_billing_account(tmp_path: Path) -> None:
    outcome = run_cli(["cost", "--stack-file", str(_with_budget(tmp_path, "{monthly_usd: 5000}", "tpu-prod"))])
    assert outcome.code == 2 and "budget.billing_account: a Google Cloud budget belongs to a billing account" \
        in outcome.err


def test_an_unknown_region_is_refused_and_an_unpriced_one_says_no_price(tmp_path: Path) -> None:
    unknown = _raw_variant(tmp_path, ("    region: us-west-2", "    region: us-north-9"))
    outcome = run_cli(["cost", "--stack-file", str(unknown)])
    assert outcome.code == 2 and "region" in outcome.err and "us-north-9" in outcome.err
    other = tmp_path / "other"
    other.mkdir()
    unpriced = _raw_variant(other, ("us-west-2", "eu-west-1"))
    outcome = run_cli(["cost", "--stack-file", str(unpriced), "--format", "json"])
    assert outcome.code == 0, outcome.err
    data = json.loads(outcome.out)
    # Buckets are priced by use: the four declared and the CloudTrail trail's.
    assert data["total"]["maximum"] == 0 and len(data["unpriced"]) == len(data["items"]) - 5
    assert "no prices for region eu-west-1 in the aws table (regions: us-east-1, us-west-2)" in data["notes"]


def test_cost_without_a_stack_says_so() -> None:
    outcome = run_cli(["cost"])
    assert outcome.code == 2 and "name the stack to price: --stack NAME or --stack-file PATH" in outcome.err
