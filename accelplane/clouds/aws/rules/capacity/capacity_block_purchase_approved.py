"""AP-CAP-001: an EC2 Capacity Block the stack buys is approved, within its price cap and under a budget.

A block is paid in full at purchase and never refunded, and `pulumi up` is the only place it is bought
(`accelplane.clouds.aws.capacity_block`). So the plan that buys one must carry who approved it and on
which day (not a day still to come), an upfront fee no higher than the approved maximum, and the stack's
budget, which AP-COST-001 judges with the block's fee counted. The terms are read from the purchase's
own tags, so the same judgement holds on a `pulumi preview --json`, a state export and CrossGuard.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.capacity.purchases import approval_problems, budget_problem
from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.capacity_terms import TaggedTerms
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    tags = resource.get("tags") or {}
    if not isinstance(tags, dict):
        return
    tagged = TaggedTerms.of(tags)
    offering = tagged.offering or resource.get("capacityBlockOfferingId") or "?"
    upfront, cap = tagged.upfront_usd, tagged.max_upfront_usd
    terms = f"capacity block {offering} ({tagged.dates()}"
    terms += f", ${upfront:,.2f} upfront)" if upfront is not None else ", upfront fee not declared)"
    yield from approval_problems(terms, tagged.approved_by, tagged.approved_on, graph.as_of,
                                 "a block is never refunded")
    if upfront is None or cap is None:
        yield f"{terms}: declare the offering's upfront_usd and the approved max_upfront_usd"
    elif upfront > cap:
        yield f"{terms} costs ${upfront - cap:,.2f} more than the approved maximum ${cap:,.2f}"
    unbudgeted = budget_problem(graph, terms)
    if unbudgeted:
        yield unbudgeted


RULE = Rule(
    id="AP-CAP-001",
    name="capacity-block-purchase-approved",
    description="Checks whether an EC2 Capacity Block the stack buys carries a dated approval that is not in the "
    "future, an upfront fee within the approved maximum, and a stack budget.",
    family=Family.cost,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Copy the offering's terms from `accelplane capacity offerings`, set capacity.block.approved_by, "
    "approved_on and max_upfront_usd, and declare budget.monthly_usd (AP-COST-001 counts the block's fee).",
    resource_types=frozenset({t.CAPACITY_BLOCK}),
    check=check,
    scope=Scope.stack,  # the budget is another resource of the stack
    categories=("cost", "capacity"),
    references=("https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html",),
)
