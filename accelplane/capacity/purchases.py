"""Capacity a stack buys and cannot give back (a block of machines for fixed dates, a future
reservation): the facet a cloud offers (`accelplane.purchases`) naming its resource types, and
AP-CAP-002, the check only `accelplane diff` can make — a bought resource that a change deletes, renames
or re-buys.

A purchase is paid and never refunded; deleting its resource only makes Pulumi forget it (the cloud
keeps billing), and a renamed one is a new resource: `pulumi up` buys it again before it fails to
delete the protected old one. So a change that removes a purchase from the plan, or changes what the
cloud reads at purchase (its force-new inputs, which the program ignores once bought), is refused.
Its end date passed, the purchase is released with `pulumi state unprotect` and `pulumi state delete`
(docs/capacity.md), not by a change of the declaration alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from accelplane.cloud_support import installed_facets
from accelplane.cost.budget import budget_types
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity

PURCHASES_GROUP = "accelplane.purchases"


@dataclass(frozen=True)
class Purchases:
    """A cloud's resources that buy capacity (`accelplane.purchases` entry point)."""

    cloud: str
    # Type token -> the inputs the cloud reads at purchase (changing one would buy again).
    types: Mapping[str, tuple[str, ...]]
    # What a purchase is, in words, from its plan resource (terms a reviewer recognises).
    describe: Callable[[Mapping[str, Any]], str]


def approval_problems(what: str, by: str | None, on: str | None, as_of: date | None,
                      why_approve: str) -> Iterator[str]:
    """What a purchase's approval lacks: who and when (`why_approve` says why it must be approved), a day
    that is a date, and not one still to come at `as_of` (today by default)."""
    if not by or not on:
        yield f"buying {what} needs approved_by and approved_on in the declaration: {why_approve}"
        return
    try:
        approved = date.fromisoformat(str(on))
    except ValueError:
        yield f"{what}: approved_on {on!r} is not a date (YYYY-MM-DD)"
        return
    today = as_of or date.today()
    if approved > today:
        yield f"{what}: approved on {approved.isoformat()}, a day still to come (judged at {today.isoformat()})"


def budget_problem(graph: ReferenceGraph, what: str) -> str | None:
    """A purchase in a stack without a budget (AP-COST-001 judges the budget with its cost counted)."""
    if graph.of_type(*budget_types()):
        return None
    return f"buying {what} needs the stack's budget (budget: monthly_usd), which AP-COST-001 judges with its cost"


def purchase_facets() -> tuple[Purchases, ...]:
    return installed_facets(PURCHASES_GROUP, Purchases)


def _by_type() -> dict[str, Purchases]:
    return {token: facet for facet in purchase_facets() for token in facet.types}


def purchase_rule() -> Rule:
    """The rule's record, over every installed cloud's purchase types (built on use: the facets load then)."""
    return Rule(
        id="AP-CAP-002",
        name="capacity-purchase-kept",
        description="Checks whether a change keeps every capacity purchase of the base revision as it was bought: "
        "not deleted, renamed or re-bought (accelplane diff only: it compares two revisions).",
        family=Family.cost,
        severity=Severity.high,
        enforcement=Enforcement.mandatory,
        remediation="Keep the purchase's declaration (pool name, offering) until its end; then release it from the "
        "stack with `pulumi state unprotect` and `pulumi state delete` (docs/capacity.md).",
        resource_types=frozenset(_by_type()),
        check=lambda resource, graph: (),  # judged by purchase_problems, on two revisions
        categories=("cost", "capacity"),
    )


def purchase_problems(
    base: Iterable[Mapping[str, Any]], head: Iterable[Mapping[str, Any]]
) -> list[tuple[Mapping[str, Any], str]]:
    """(base resource, why) for each purchase of `base` the change deletes, renames or re-buys."""
    kinds = _by_type()
    after = {str(r.get("urn")): r for r in head if r.get("type") in kinds}
    found = []
    for resource in base:
        facet = kinds.get(str(resource.get("type")))
        if facet is None:
            continue
        what = facet.describe(resource)
        kept = after.get(str(resource.get("urn")))
        if kept is None:
            found.append((resource, f"{what} leaves the plan (deleted or renamed): the cloud keeps billing it, "
                                    "and a renamed purchase is bought again"))
            continue
        changed = [name for name in facet.types[str(resource.get("type"))]
                   if _inputs(resource).get(name) != _inputs(kept).get(name)]
        if changed:
            found.append((resource, f"{what}: {', '.join(changed)} changed after the purchase: the program ignores "
                                    "it (nothing is bought again), so the declaration would no longer say what "
                                    "was bought"))
    return found


def _inputs(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    inputs = resource.get("inputs")
    return inputs if isinstance(inputs, Mapping) else {}


def purchase_lines(resources: Iterable[Mapping[str, Any]]) -> list[str]:
    """Each purchase of a plan in words, for `preview` (what `pulumi up` would commit to)."""
    kinds = _by_type()
    return [kinds[str(r.get("type"))].describe(r) for r in resources if r.get("type") in kinds]
