"""AP-CAP-003: a calendar-mode future reservation the stack requests is approved, within its price cap and
under a budget.

Once Google approves the request it bills for the reserved machines for the whole period, used or not,
and `pulumi up` is the only place it is requested (`accelplane.clouds.gcp.future_reservation`). So the
plan that requests one must carry who approved it and on which day (not a day still to come), a
commitment no higher than the approved maximum — estimated at the on-demand list price, an upper bound
of the calendar-mode bill, as Google names no price before it bills — and the stack's budget. The terms
are read from the request's own inputs and description, so the same judgement holds on a
`pulumi preview --json`, a state export and CrossGuard.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.capacity.purchases import approval_problems, budget_problem
from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.future_reservation_terms import SOURCE, RequestTerms, commitment_usd
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    terms = RequestTerms.of(resource.name, dict(resource.props))
    what = f"future reservation {terms.name} ({terms.machines or '?'} x {terms.machine or '?'}, {terms.dates()})"
    yield from approval_problems(what, terms.approved_by, terms.approved_on, graph.as_of,
                                 "an approved request bills for its whole period")
    estimate = commitment_usd(terms)
    if terms.max_usd is None:
        yield f"{what}: declare the approved max_usd"
    elif estimate is None:
        yield (f"{what}: no list price for {terms.machine or 'its machine type'} in "
               f"{terms.region() or 'its region'}, so the commitment cannot be held to max_usd")
    elif estimate > terms.max_usd:
        yield (f"{what} commits up to ${estimate:,.2f} at on-demand prices, ${estimate - terms.max_usd:,.2f} more "
               f"than the approved maximum ${terms.max_usd:,.2f}")
    unbudgeted = budget_problem(graph, what)
    if unbudgeted:
        yield unbudgeted


RULE = Rule(
    id="AP-CAP-003",
    name="future-reservation-purchase-approved",
    description="Checks whether a calendar-mode future reservation the stack requests carries a dated approval "
    "that is not in the future, a commitment (at on-demand list prices) within the approved maximum, and a stack "
    "budget.",
    family=Family.cost,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Copy the zone and dates from `accelplane capacity offerings`, set "
    "capacity.future_reservation.approved_by, approved_on and max_usd (at least the commitment `accelplane cost` "
    "shows), and declare budget.monthly_usd.",
    resource_types=frozenset({t.FUTURE_RESERVATION}),
    check=check,
    scope=Scope.stack,  # the budget is another resource of the stack
    categories=("cost", "capacity"),
    references=(SOURCE,),
)
