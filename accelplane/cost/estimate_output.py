"""`accelplane cost` output: text, JSON and Markdown of one estimate, every figure with its source and
the table's date; a line without a price says so and is never summed as 0."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from accelplane.cost.budget import BudgetVerdict
from accelplane.cost.estimate import SIZES, Estimate, LineItem
from accelplane.cost.prices import source_of

FORMATS = ("text", "json", "markdown")


def money(value: float | None) -> str:
    return "no price" if value is None else f"${value:,.2f}"


def one_line(estimate: Estimate) -> str:
    """What `preview` prints: the monthly range and its basis."""
    low, desired, high = estimate.totals()
    unpriced = len(estimate.unpriced())
    text = (f"Monthly cost (USD, list prices of {estimate.table.retrieved.isoformat()}): {money(low)} at minimum, "
            f"{money(desired)} at desired, {money(high)} at maximum pool sizes")
    if unpriced:
        text += f"; {unpriced} line(s) without a price are not included"
    return text + " (`accelplane cost` for each line)"


def notes(estimate: Estimate, today: date) -> list[str]:
    table = estimate.table
    found = [f"USD only; list prices retrieved {table.retrieved.isoformat()}; a month is "
             f"{table.hours_per_month:g} hours; usage (traffic, requests, stored GB) is not estimated"]
    if table.stale(today):
        found.append(f"WARNING: the {estimate.cloud} price table is {table.age_days(today)} days old (more than "
                     f"{table.max_age_days}): run `accelplane prices refresh`")
    unconfirmed = sorted({part.what.split(" ")[0] for item in estimate.items for part in item.parts
                          if not part.confirmed})
    if unconfirmed:
        found.append("prices not re-read from their page (`confirmed: false` in the table): " + ", ".join(unconfirmed))
    spot = [item for item in estimate.items if item.spot_range]
    if spot:
        found.append("spot pools are priced at the upper end of their range (prices change with demand); the range "
                     "per node-hour is shown")
    found.extend(estimate.notes)
    found.extend(f"{item.resource}: no price for {', '.join(item.unpriced)}" for item in estimate.unpriced())
    return found


def _total_label(estimate: Estimate) -> str:
    """TOTAL, or what it is when lines have no price: a lower bound, never a sum that reads complete."""
    unpriced = len(estimate.unpriced())
    return f"TOTAL (at least: {unpriced} line(s) without a price)" if unpriced else "TOTAL"


def _nodes(item: LineItem) -> str:
    return "/".join(str(n) for n in item.nodes) if item.nodes else ""


def _pricing(item: LineItem) -> str:
    text = item.pricing
    if item.discount:
        text += f", {item.discount.kind} -{item.discount.percent:g}%"
    if item.spot_range:
        text += f" ${item.spot_range[0]:,.4g}-${item.spot_range[1]:,.4g}/h"
    return text


def _monthly(estimate: Estimate, item: LineItem) -> tuple[str, str, str]:
    value = item.monthly(estimate.hours)
    if value is None:
        return ("no price",) * 3  # type: ignore[return-value]
    if not item.parts:
        return ("usage",) * 3  # type: ignore[return-value]
    return money(value[0]), money(value[1]), money(value[2])


def render_text(estimate: Estimate, stack: str, today: date, verdict: BudgetVerdict | None = None) -> str:
    header: tuple[str, ...] = ("RESOURCE", "KIND", "POOL", "NODES", "MINIMUM", "DESIRED", "MAXIMUM", "PRICING")
    rows: list[tuple[str, ...]] = [header]
    for item in estimate.items:
        rows.append((item.resource, item.kind, item.pool or "", _nodes(item), *_monthly(estimate, item),
                     _pricing(item) if item.parts else (item.usage or "")))
    low, desired, high = estimate.totals()
    rows.append((_total_label(estimate), "", "", "", money(low), money(desired), money(high), ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [f"Cost of stack {stack} ({estimate.cloud}, {estimate.region}), per month in USD", ""]
    lines += ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    pools = estimate.by_pool()
    if pools:
        lines += ["", "Per pool (minimum / desired / maximum):"]
        lines += [f"  {pool}: " + (" / ".join(money(v) for v in value) if value else "no price")
                  for pool, value in sorted(pools.items())]
    if verdict is not None:
        lines += ["", f"Budget: {verdict.message()}" + (" — OVER" if verdict.over else " — CANNOT JUDGE"
                                                        if verdict.cannot_judge else " — warning" if verdict.warned
                                                        else "")]
    lines += ["", *(f"note: {note}" for note in notes(estimate, today))]
    lines += ["sources: " + ", ".join(f"{key} {source.url}" for key, source in sorted(estimate.table.sources.items())
                                      if key in _used_sources(estimate))]
    return "\n".join(lines)


def _used_sources(estimate: Estimate) -> set[str]:
    return {part.source for item in estimate.items for part in item.parts if part.source}


def as_json(estimate: Estimate, stack: str, today: date, verdict: BudgetVerdict | None = None) -> dict[str, Any]:
    def item_json(item: LineItem) -> dict[str, Any]:
        value = item.monthly(estimate.hours)
        return {
            "resource": item.resource, "type": item.type, "kind": item.kind, "pool": item.pool,
            "machine": item.machine, "nodes": dict(zip(SIZES, item.nodes, strict=True)) if item.nodes else None,
            "pricing": item.pricing,
            "discount": {"kind": item.discount.kind, "percent": item.discount.percent} if item.discount else None,
            "spot_range_per_node_hour": list(item.spot_range) if item.spot_range else None,
            "monthly": dict(zip(SIZES, value, strict=True)) if value is not None else None,
            "parts": [{"what": p.what, "unit_price": p.unit_price, "per": p.unit, "counts": list(p.counts),
                       "source": p.source, "confirmed": p.confirmed} for p in item.parts],
            "usage": item.usage, "note": item.note,
        }

    totals = estimate.totals()
    return {
        "stack": stack, "cloud": estimate.cloud, "region": estimate.region, "currency": "USD",
        "prices_retrieved": estimate.table.retrieved.isoformat(), "hours_per_month": estimate.hours,
        "stale": estimate.table.stale(today),
        "total": dict(zip(SIZES, totals, strict=True)),
        # The total leaves out every unpriced line: a lower bound then, never a complete sum.
        "total_is_lower_bound": bool(estimate.unpriced()),
        "unpriced": [item.resource for item in estimate.unpriced()],
        "pools": {pool: dict(zip(SIZES, value, strict=True)) if value else None
                  for pool, value in sorted(estimate.by_pool().items())},
        "items": [item_json(item) for item in estimate.items],
        "budget": None if verdict is None else {
            "monthly_usd": verdict.budget.monthly_usd, "judged_at": verdict.budget.judged_at,
            "warn_at": verdict.budget.warn_at, "cost": verdict.cost, "over": verdict.over, "warned": verdict.warned,
            "cannot_judge": verdict.cannot_judge, "unpriced_lines": verdict.unpriced},
        "sources": [source_of(estimate.table, key) for key in sorted(_used_sources(estimate))],
        "notes": notes(estimate, today),
    }


def render_markdown(estimate: Estimate, stack: str, today: date, verdict: BudgetVerdict | None = None) -> str:
    lines = [f"### Monthly cost of `{stack}` ({estimate.cloud}, {estimate.region}, USD)", "",
             "| Resource | Kind | Pool | Nodes (min/desired/max) | Minimum | Desired | Maximum | Pricing |",
             "|---|---|---|---|---:|---:|---:|---|"]
    for item in estimate.items:
        low, desired, high = _monthly(estimate, item)
        pricing = _pricing(item) if item.parts else (item.usage or "")
        lines.append(f"| `{item.resource}` | {item.kind} | {item.pool or ''} | {_nodes(item)} | {low} | {desired} | "
                     f"{high} | {pricing} |")
    low, desired, high = estimate.totals()
    total = _total_label(estimate).capitalize()
    lines.append(f"| **{total}** | | | | **{money(low)}** | **{money(desired)}** | **{money(high)}** | |")
    if verdict is not None:
        lines += ["", f"**Budget:** {verdict.message()}"]
    lines += ["", *(f"- {note}" for note in notes(estimate, today))]
    return "\n".join(lines)


def render(estimate: Estimate, stack: str, fmt: str, today: date, verdict: BudgetVerdict | None = None) -> str:
    if fmt == "json":
        return json.dumps(as_json(estimate, stack, today, verdict), indent=2, sort_keys=True)
    if fmt == "markdown":
        return render_markdown(estimate, stack, today, verdict)
    return render_text(estimate, stack, today, verdict)
