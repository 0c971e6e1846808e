"""A migration's cost (`migration.cost`) as text, JSON or Markdown. USD; a figure the price tables cannot
give is "unpriced", never 0."""

from __future__ import annotations

import json
from typing import Any

from accelplane.migration.cost import EndCost, MigrationCost


def _usd(value: float | None) -> str:
    return "unpriced" if value is None else f"${value:,.2f}"


def to_json(cost: MigrationCost) -> dict[str, Any]:
    def end(found: EndCost) -> dict[str, Any]:
        return {"stack": found.stack, "service": found.service, "cloud": found.cloud, "region": found.region,
                "stack_monthly": dict(zip(("minimum", "desired", "maximum"), found.stack_monthly, strict=True)),
                "service_monthly_desired": found.service_monthly(1.0),
                "pools": [{"pool": p.pool, "nodes": list(p.nodes), "per_node_month": p.per_node_month}
                          for p in found.pools],
                "unpriced": list(found.unpriced)}

    return {
        "migration": cost.stack, "hostname": cost.hostname, "currency": "USD",
        "source": end(cost.source), "target": end(cost.target),
        "steps": [{"target_weight": s.weight, "source_monthly": s.source_monthly, "target_monthly": s.target_monthly,
                   "overlap_monthly": s.overlap_monthly, "bake_hours": s.bake_hours,
                   "step_cost": s.step_cost(cost.source.hours_per_month)} for s in cost.steps],
        "per_million_requests": [{"end": r.role, "backend": r.backend, "pool": r.pool,
                                  "throughput_rps": r.throughput_rps, "concurrency": r.concurrency,
                                  "usd": r.per_million, "output_tokens_per_second": r.tokens_per_second,
                                  "usd_per_million_tokens": r.per_million_tokens} for r in cost.requests],
        "notes": cost.notes,
    }


def _ends(cost: MigrationCost) -> list[str]:
    lines = []
    for found in (cost.source, cost.target):
        low, desired, high = found.stack_monthly
        pools = ", ".join(f"{p.pool} {p.nodes[1]} x {_usd(p.per_node_month)}" for p in found.pools)
        lines.append(f"  {found.role} {found.stack} ({found.cloud} {found.region}): stack {_usd(low)} / {_usd(desired)}"
                     f" / {_usd(high)} a month (minimum / desired / maximum); {found.service} on {pools} = "
                     f"{_usd(found.service_monthly(1.0))} a month at its desired size")
        if found.unpriced:
            lines.append(f"    unpriced lines: {', '.join(found.unpriced)}")
    return lines


def render_text(cost: MigrationCost) -> str:
    lines = [f"migration {cost.stack}: {cost.hostname} (USD a month)", *_ends(cost),
             "  steps (target weight: source + target service pools = overlap; the step over its bake):"]
    for step in cost.steps:
        over = step.step_cost(cost.source.hours_per_month)
        lines.append(f"    {step.weight:>3}%: {_usd(step.source_monthly)} + {_usd(step.target_monthly)} = "
                     f"{_usd(step.overlap_monthly)}" + (f"; {_usd(over)} over {step.bake_hours:g} h" if step.bake_hours
                                                        else ""))
    for request in cost.requests:
        tokens = (f", {_usd(request.per_million_tokens)} per million tokens at {request.tokens_per_second:g} "
                  "tokens/s" if request.tokens_per_second else "")
        lines.append(f"  {request.role} {request.backend} ({request.pool}): {_usd(request.per_million)} per million "
                     f"requests at {request.throughput_rps:g} requests/s{tokens} (parity load, concurrency "
                     f"{request.concurrency})")
    lines += [f"  note: {note}" for note in cost.notes]
    return "\n".join(lines)


def render_markdown(cost: MigrationCost) -> str:
    lines = [f"### Cost of migration `{cost.stack}`: {cost.hostname}", "", *[f"- {line.strip()}" for line in
                                                                              _ends(cost)], "",
             "| target weight | source | target | overlap a month | the step |", "|---:|---:|---:|---:|---:|"]
    for step in cost.steps:
        over = step.step_cost(cost.source.hours_per_month)
        lines.append(f"| {step.weight}% | {_usd(step.source_monthly)} | {_usd(step.target_monthly)} | "
                     f"{_usd(step.overlap_monthly)} | {_usd(over) if step.bake_hours else '-'} |")
    if cost.requests:
        lines += ["", "| end | backend | requests/s | per million requests | per million tokens |",
                  "|---|---|---:|---:|---:|"]
        lines += [f"| {r.role} | {r.backend} | {r.throughput_rps:g} | {_usd(r.per_million)} | "
                  f"{_usd(r.per_million_tokens) if r.tokens_per_second else '-'} |" for r in cost.requests]
    lines += [""] + [f"_{note}_" for note in cost.notes] if cost.notes else []
    return "\n".join(lines)


FORMATS = {"text": render_text, "markdown": render_markdown,
           "json": lambda cost: json.dumps(to_json(cost), indent=2, sort_keys=True)}
