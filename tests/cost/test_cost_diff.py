"""The cost of a change in `accelplane diff`: a pool's maximum 4 -> 16, a new pool, a removed bucket and
a traffic step, priced in both revisions; the Markdown comment (baseline, change with sign and
percentage, new monthly cost, the resources that change) and its Mermaid picture."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import accelplane.diff as diff_package
from tests.cost.conftest import HOURS
from tests.diff.conftest import NEW_POOL
from tests.diff.git_project import copy_project, edit, init_repository
from tests.diff.kept_diff import keeping_diffs
from tests.support.cli_contract import run_cli

P5_HOUR, G6_2XL_HOUR, GP3 = 55.04, 0.9776, 0.08


@dataclass
class Reviewed:
    markdown: str
    data: dict
    text: str


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reviewed]:
    repo = copy_project(tmp_path_factory.mktemp("cost-diff") / "repo")
    base = init_repository(repo)
    prod = repo / "stacks" / "Pulumi.prod.yaml"
    edit(prod, "        scaling: {min: 0, desired: 2, max: 4}\n        disk_gib: 1000",
         "        scaling: {min: 0, desired: 2, max: 16}\n        disk_gib: 1000")
    edit(prod, "      - name: train-trn1\n", NEW_POOL + "      - name: train-trn1\n")
    edit(prod, "      - role: logs\n        lifecycle:\n          - id: expire-logs\n            expire_days: 365\n"
               "            transitions: [{days: 30, storage_class: GLACIER_IR}]\n"
               "            noncurrent_expire_days: 7\n", "")
    edit(prod, '          - {role: logs, access: write, prefix: "pretrain/"}\n', "")
    edit(prod, "              weight: 95\n", "              weight: 75\n")
    edit(prod, "              weight: 5\n", "              weight: 25\n")
    # One diff run through the CLI (JSON); the other formats rendered from the same PlanDiff: each run
    # previews both revisions, the formats only read what it found.
    with keeping_diffs() as seen:
        data = run_cli(["diff", "--stack", "prod", "--base", base, "--project-dir", str(repo), "--as-of", "2026-12-05",
                        "--format", "json"])
    assert data.code in (0, 1), data.err
    [diff] = seen
    yield Reviewed(diff_package.render(diff, "markdown"), json.loads(data.out), diff_package.render(diff, "table"))


def test_the_pool_maximum_change_is_priced(reviewed: Reviewed) -> None:
    cost = reviewed.data["cost"]
    lines = {line["resource"]: line for line in cost["resources"]}
    h100 = lines["acme-ml-train-h100-ng"]
    assert h100["status"] == "changed"
    assert h100["baseline"]["maximum"] == pytest.approx(4 * P5_HOUR * HOURS + 4 * 1000 * GP3, abs=0.01)
    assert h100["new"]["maximum"] == pytest.approx(16 * P5_HOUR * HOURS + 16 * 1000 * GP3, abs=0.01)
    new_pool = lines["acme-ml-infer-l4-ng"]
    assert new_pool["status"] == "added" and new_pool["baseline"] is None
    assert new_pool["new"]["maximum"] == pytest.approx(4 * G6_2XL_HOUR * HOURS + 4 * 200 * GP3, abs=0.01)
    # A removed bucket: usage-based, no fixed monthly cost, listed as removed.
    assert lines["acme-ml-logs-bucket"]["status"] == "removed"
    expected = (12 * P5_HOUR * HOURS + 12 * 1000 * GP3) + new_pool["new"]["maximum"]
    assert cost["change"]["maximum"] == pytest.approx(expected, abs=0.05)
    assert cost["change"]["minimum"] == 0  # both pools scale from zero


def test_the_comment_follows_the_cost_convention(reviewed: Reviewed) -> None:
    md = reviewed.markdown
    assert "#### Monthly cost (USD, list prices of 2026-11-30)" in md
    baseline = 250711.06
    change = 12 * P5_HOUR * HOURS + 12 * 1000 * GP3 + 4 * G6_2XL_HOUR * HOURS + 4 * 200 * GP3
    assert f"Monthly cost will increase by **${change:,.2f}** (+{change / baseline:.0%}) 📈 at maximum pool sizes." \
        in md
    assert "| Pool sizes | Baseline cost | Cost change | New monthly cost |" in md
    assert f"| maximum | ${baseline:,.2f} | +${change:,.2f} (+{change / baseline:.0%}) | ${baseline + change:,.2f} |" \
        in md
    assert "| `acme-ml-train-h100-ng` | node pool | changed: p5.48xlarge x 0/2/4 → p5.48xlarge x 0/2/16 |" in md
    assert "| `acme-ml-logs-bucket` | S3 bucket | removed |" in md
    assert "Monthly cost (USD, list prices of 2026-11-30, at maximum pool sizes): $250,711.06 →" in reviewed.text


def test_the_picture_holds_pools_per_accelerator_and_the_traffic_split(reviewed: Reviewed) -> None:
    block = reviewed.markdown.split("```mermaid\n", 1)[1].split("\n```", 1)[0]
    assert block == reviewed.data["cost"]["mermaid"]
    assert block.startswith("flowchart LR")
    assert 'subgraph acc_nvidia_hgx_h100_8gpu["nvidia-hgx-h100-8gpu"]' in block
    assert 'pool_train_h100["train-h100<br/>p5.48xlarge x 0/2/16<br/>was 0/2/4"]' in block
    assert 'pool_infer_l4["infer-l4<br/>g6.2xlarge x 0/1/4<br/>new"]' in block
    assert 'svc_serve -->|"l40s 95% → 75%"| pool_infer_l40s' in block
    assert 'svc_serve -->|"inf2 5% → 25%"| pool_infer_inf2' in block
    assert "class pool_train_h100,pool_infer_l4 changed" in block or "class pool_infer_l4,pool_train_h100 changed" \
        in block


def test_a_real_mermaid_renders_the_picture(reviewed: Reviewed, tmp_path: Path) -> None:
    from tests.support.mermaid_render import render, svg_text

    block = reviewed.data["cost"]["mermaid"]
    shown = " ".join(svg_text(render(block, tmp_path)).split())
    for text in ("nvidia-hgx-h100-8gpu", "train-h100", "p5.48xlarge x 0/2/16", "was 0/2/4", "infer-l4",
                 "g6.2xlarge x 0/1/4", "aws-inferentia2", "serve", "l40s 95% → 75%", "inf2 5% → 25%", "CPU"):
        assert text in shown, text


def test_the_renderer_refuses_a_broken_picture(tmp_path: Path) -> None:
    from tests.support.mermaid_render import RenderError, render

    with pytest.raises(RenderError):
        render("flowchart LR\n  a[\"unclosed --> b", tmp_path)
