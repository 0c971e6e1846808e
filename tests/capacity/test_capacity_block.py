"""A pool on an EC2 Capacity Block for ML the stack buys (stacks/Pulumi.train-burst.yaml): the purchase and
how the nodes consume it, what the declaration refuses, what `check`, `cost` and `preview` say, and the
purchase a change must keep (AP-CAP-002).

What the plan must hold is written from the EKS user guide ("Create a managed node group with Capacity
Blocks for ML": a launch template naming the instance type, market type `capacity-block` and the
reservation as target; capacity type CAPACITY_BLOCK) and the provider's schema (offering id and platform
force a new block; terraform-provider-aws ec2_capacity_block_reservation.go). The example offering: two
p5.48xlarge for 48 hours, $3,020.54 upfront.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from accelplane.capacity.purchases import purchase_problems
from accelplane.cli import main
from accelplane.config.loader import load_stack_text
from accelplane.program import offline_graph
from tests.support.stack_files import edit_problems, stack_text

STACK = "train-burst"
BLOCK_TYPE = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"


def _plan(text: str | None = None) -> list[dict[str, Any]]:
    stack = load_stack_text(text or stack_text(STACK), path=f"Pulumi.{STACK}.yaml", stack=STACK)
    return offline_graph(stack).to_json()["resources"]


@pytest.fixture(scope="module")
def plan() -> list[dict[str, Any]]:
    return _plan()


def _one(resources: list[dict[str, Any]], type_token: str, name: str) -> dict[str, Any]:
    [found] = [r for r in resources if r["type"] == type_token and r["urn"].endswith(f"::{name}")]
    return found


def test_the_block_is_bought_once_protected_with_its_terms_and_approval_on_it(plan) -> None:
    block = _one(plan, BLOCK_TYPE, "acme-burst-train-h100-block")
    assert block["inputs"]["capacityBlockOfferingId"] == "cb-0e4b2c9d8a7f61352"
    assert block["inputs"]["instancePlatform"] == "Linux/UNIX"
    assert block["protect"] is True  # AWS cancels no block: deleting it would only forget it
    tags = block["inputs"]["tags"]
    assert {key: tags[key] for key in tags if key.startswith("accelplane:capacity-")} == {
        "accelplane:capacity-offering": "cb-0e4b2c9d8a7f61352",
        "accelplane:capacity-start": "2026-12-21T11:30:00Z",
        "accelplane:capacity-end": "2026-12-23T11:30:00Z",
        "accelplane:capacity-upfront-usd": "3020.54",
        "accelplane:capacity-max-upfront-usd": "3200.00",
        "accelplane:capacity-approved-by": "head-of-ml@acme.example",
        "accelplane:capacity-approved-on": "2026-12-07",
    }
    assert tags["accelplane.io/pool"] == "train-h100"


def test_the_pool_consumes_the_block_in_its_zone_through_its_launch_template(plan) -> None:
    block = _one(plan, BLOCK_TYPE, "acme-burst-train-h100-block")
    template = _one(plan, "aws:ec2/launchTemplate:LaunchTemplate", "acme-burst-train-h100-lt")["inputs"]
    assert template["instanceType"] == "p5.48xlarge"
    assert template["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": block["id"]}}
    assert block["id"].startswith("cr-")
    group = _one(plan, "aws:eks/nodeGroup:NodeGroup", "acme-burst-train-h100-ng")["inputs"]
    assert group["capacityType"] == "CAPACITY_BLOCK"
    assert "instanceTypes" not in group  # EKS refuses a type on both the group and its template
    assert group["scalingConfig"] == {"minSize": 0, "desiredSize": 0, "maxSize": 2}
    # us-east-1b is the VPC's second zone: its private subnet, alone.
    subnet = _one(plan, "aws:ec2/subnet:Subnet", "acme-burst-network-private-1")
    assert subnet["inputs"]["availabilityZone"] == "us-east-1b"
    assert group["subnetIds"] == [subnet["id"]]
    # A pool without a block keeps its on-demand group and every zone.
    system = _one(plan, "aws:eks/nodeGroup:NodeGroup", "acme-burst-system-ng")["inputs"]
    assert system["capacityType"] == "ON_DEMAND" and len(system["subnetIds"]) == 2


@pytest.mark.parametrize(
    ("edits", "field", "expected"),
    [
        # 15 days: past 14 days a block lasts whole weeks.
        ((("end: 2026-12-23T11:30:00Z", "end: 2027-01-05T11:30:00Z"),), "node_pools[1].capacity.block",
         "360 hours is not a Capacity Block duration"),
        ((("end: 2026-12-23T11:30:00Z", "end: 2026-12-23T12:00:00Z"),), "node_pools[1].capacity.block.end",
         "a Capacity Block starts and ends at 11:30 UTC"),
        ((("start: 2026-12-21T11:30:00Z", "start: 2026-12-21T11:30:00+01:00"),),
         "node_pools[1].capacity.block.start", "expected a UTC time ending in Z"),
        ((("zone: us-east-1b", "zone: us-east-1c"),), "node_pools[1].capacity.block.zone",
         "the VPC has no subnet in us-east-1c (zones: us-east-1a, us-east-1b)"),
        ((("scaling: {min: 0, desired: 0, max: 2}", "scaling: {min: 1, desired: 1, max: 2}"),),
         "node_pools[1].scaling", "a pool on a Capacity Block holds no node outside it"),
        ((("scaling: {min: 0, desired: 0, max: 2}", "scaling: {min: 0, desired: 0, max: 3}"),),
         "node_pools[1].scaling.max", "max 3 is more than the block's 2 instances"),
        ((("            approved_on: 2026-12-07\n", ""),), "node_pools[1].capacity.block",
         "approved_by and approved_on go together"),
        ((("          block:\n", "          reservation_id: cr-0a1b2c3d4e5f60718\n          block:\n"),),
         "node_pools[1].capacity", "declare reservation_id (a reservation you hold) or block (one to buy), not both"),
        ((("offering_id: cb-0e4b2c9d8a7f61352", "offering_id: cr-0e4b2c9d8a7f61352"),),
         "node_pools[1].capacity.block.offering_id", "cb-"),
    ],
    ids=["15-days", "not-11-30", "not-utc", "zone-without-subnet", "nodes-outside", "more-than-the-block",
         "approval-half", "both", "not-an-offering"],
)
def test_the_declaration_refuses_what_aws_would_not_sell_or_the_pool_cannot_use(tmp_path, edits, field,
                                                                                 expected) -> None:
    problems = edit_problems(tmp_path, *edits, stack=STACK)
    assert any(f.removeprefix("accelplane:platform.") == field and expected in message for f, message in problems), \
        problems


def test_check_refuses_a_purchase_without_approval_and_counts_its_fee_against_the_budget(tmp_path, capsys) -> None:
    unapproved = stack_text(STACK).replace("            approved_by: head-of-ml@acme.example\n", "").replace(
        "            approved_on: 2026-12-07\n", "")
    path = tmp_path / f"Pulumi.{STACK}.yaml"
    path.write_text(unapproved)
    assert main(["check", "--stack-file", str(path), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["rule"], f["name"]) for f in findings] == [("AP-CAP-001", "acme-burst-train-h100-block")]
    assert "needs approved_by and approved_on" in findings[0]["message"]
    # The rest of the stack costs $1,217.01 a month at maximum (system pool $907.01, two 1,000 GiB root
    # volumes $160, EKS $73, two NAT gateways $65.70 and their addresses $7.30, four KMS keys $4: EKS, data,
    # secrets, the CloudTrail log files'): a $4,000 budget holds it, but not with the block's $3,020.54 fee
    # counted ($4,237.55).
    path.write_text(stack_text(STACK).replace("budget: {monthly_usd: 25000,", "budget: {monthly_usd: 4000,"))
    assert main(["check", "--stack-file", str(path), "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["rule"] for f in findings] == ["AP-COST-001"]
    assert "costs $4,237.55 a month" in findings[0]["message"] and "over by $237.55" in findings[0]["message"]


def test_cost_prices_the_block_by_its_fee_and_its_nodes_as_prepaid(capsys) -> None:
    assert main(["cost", "--stack", STACK, "--format", "json"]) == 0
    lines = {line["resource"]: line for line in json.loads(capsys.readouterr().out)["items"]}
    block = lines["acme-burst-train-h100-block"]
    assert block["kind"] == "capacity block" and block["monthly"]["maximum"] == pytest.approx(3020.54)
    nodes = lines["acme-burst-train-h100-ng"]
    # Only the two 1,000 GiB gp3 root volumes cost on top: 2 * 1000 * $0.08 = $160 at the maximum size.
    assert nodes["monthly"] == {"minimum": 0.0, "desired": 0.0, "maximum": pytest.approx(160.0)}


def test_a_block_longer_than_a_month_is_spread_over_the_months_it_spans() -> None:
    # 26 weeks (4,368 hours) for $120,000: $120,000 / (4,368 / 730) = $20,054.95 a month.
    text = stack_text(STACK).replace("end: 2026-12-23T11:30:00Z", "end: 2027-06-21T11:30:00Z").replace(
        "upfront_usd: 3020.54", "upfront_usd: 120000").replace("max_upfront_usd: 3200", "max_upfront_usd: 125000")
    from accelplane.cost.cloud_pricing import builtin_table
    from accelplane.cost.estimate import estimate_plan

    estimate = estimate_plan({"resources": _plan(text)}, "aws", "us-east-1", builtin_table("aws"), {})
    [line] = [item for item in estimate.items if item.kind == "capacity block"]
    assert line.monthly(730) == pytest.approx((20054.95,) * 3)


def test_preview_shows_what_up_would_buy(capsys) -> None:
    main(["preview", "--stack", STACK])
    out = capsys.readouterr().out
    assert ("    capacity block cb-0e4b2c9d8a7f61352 for pool train-h100 (2026-12-21T11:30:00Z to "
            "2026-12-23T11:30:00Z, $3,020.54 upfront, approved by head-of-ml@acme.example on 2026-12-07)"
            ) in out.splitlines()


def test_a_change_that_renames_deletes_or_rebuys_a_bought_block_is_refused(plan) -> None:
    renamed = _plan(stack_text(STACK).replace("name: train-h100", "name: train-h100-b"))
    [(resource, why)] = purchase_problems(plan, renamed)
    assert resource["urn"].endswith("::acme-burst-train-h100-block")
    assert "leaves the plan (deleted or renamed)" in why and "bought again" in why
    other = _plan(stack_text(STACK).replace("cb-0e4b2c9d8a7f61352", "cb-0ffffffffffffffff"))
    [(_, why)] = purchase_problems(plan, other)
    assert "capacityBlockOfferingId changed after the purchase" in why
    # The same purchase, another pool size: nothing to refuse.
    resized = _plan(stack_text(STACK).replace("scaling: {min: 0, desired: 0, max: 2}",
                                              "scaling: {min: 0, desired: 0, max: 1}"))
    assert purchase_problems(plan, resized) == []


def test_the_approval_day_is_judged_at_as_of(tmp_path) -> None:
    from accelplane.rules.engine import run_rule
    from accelplane.rules.graph import ReferenceGraph
    from accelplane.rules.registry import rule_by_id
    from accelplane.rules.sources import from_plan

    rule = rule_by_id("AP-CAP-001")
    resources = from_plan({"resources": _plan()}, "plan")
    before = run_rule(rule, ReferenceGraph(resources, as_of=date(2026, 12, 6)))[0]
    assert [f.message for f in before] == [
        "capacity block cb-0e4b2c9d8a7f61352 (2026-12-21T11:30:00Z to 2026-12-23T11:30:00Z, $3,020.54 upfront): "
        "approved on 2026-12-07, a day still to come (judged at 2026-12-06)"]
    assert run_rule(rule, ReferenceGraph(resources, as_of=date(2026, 12, 7)))[0] == []


def test_the_example_stack_is_valid(tmp_path: Path) -> None:
    assert edit_problems(tmp_path, stack=STACK) == []


def test_moving_a_pool_onto_a_block_replaces_its_node_group_in_diff(plan) -> None:
    """EKS cannot change a node group's capacity type or instance types in place (terraform-provider-aws
    node_group.go: ForceNew), so binding a running pool to a block is a new node group."""
    from accelplane.diff.resources import diff_graphs

    text = stack_text(STACK)
    start, end = text.index("        capacity:\n"), text.index("        scaling: {min: 0, desired: 0, max: 2}")
    on_demand = _plan(text[:start] + text[end:])
    changes = {change.name: change for change in diff_graphs({"resources": on_demand}, {"resources": plan})}
    group = changes["acme-burst-train-h100-ng"]
    # The group keeps its name (node_group_name is the pool's), so the old one goes first: nodes drain.
    assert group.op == "delete-before-replace" and {"capacityType", "instanceTypes"} <= set(group.forced_by)
    assert changes["acme-burst-train-h100-block"].op == "create"


def test_an_offering_listed_is_declared_by_pasting_what_capacity_offerings_prints(tmp_path) -> None:
    """`capacity offerings` prints, for an EC2 offer, the pool's `capacity` that buys it: pasted under the
    pool with the approval filled in, the stack loads with the offer's terms."""
    import datetime as dt

    from accelplane.capacity.offerings import Offering, offerings_of
    from accelplane.config.loader import load_stack_file

    offer = Offering(kind="capacity block", offering_id="cb-0a0b0c0d0e0f01234", zone="us-east-1a",
                     start=dt.datetime(2027, 1, 4, 11, 30, tzinfo=dt.UTC),
                     end=dt.datetime(2027, 1, 11, 11, 30, tzinfo=dt.UTC), machine="p5.48xlarge", count=2,
                     upfront_usd=10571.90, in_pool_zones=True)
    facet = offerings_of("aws")
    assert facet is not None and facet.declaration is not None
    snippet = facet.declaration(offer).replace("<who approves the purchase>", "cfo@acme.example").replace(
        "<YYYY-MM-DD>", "2026-12-07")
    text = stack_text(STACK)
    start, end = text.index("        capacity:\n"), text.index("        scaling: {min: 0, desired: 0, max: 2}")
    path = tmp_path / f"Pulumi.{STACK}.yaml"
    path.write_text(text[:start] + "".join(f"        {line}\n" for line in snippet.splitlines()) + text[end:])
    block = load_stack_file(path, stack=STACK).platform.node_pools[1].capacity.block
    assert block is not None
    assert (block.offering_id, block.zone, block.instances, block.hours, block.upfront_usd, block.max_upfront_usd) == (
        "cb-0a0b0c0d0e0f01234", "us-east-1a", 2, 168.0, 10571.90, 10571.90)
