"""The cost section of `accelplane diff`: the monthly cost of the base and the working tree, the
change per resource, and a Mermaid picture of the pools and the inference traffic split.

Both revisions' plans are priced with the same (shipped) tables, so the change is the change's own.
The headline size is the one the stack's budget is judged at (maximum without a budget): a PR that
raises a pool's maximum from 4 to 16 nodes shows what that can cost. The comment follows the
convention IaC users know from cost bots: baseline, change with sign and percentage, new monthly
cost, then the resources that change.

The picture (a `flowchart`, which GitHub and GitLab render from a ```mermaid block): one subgraph per
accelerator type holding its pools with machine type and node counts (changed pools marked, their
old counts shown), and each inference service's backends with their traffic weight.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from accelplane.cost.budget import budgets_in
from accelplane.cost.cloud_pricing import builtin_table
from accelplane.cost.estimate import SIZES, Estimate, LineItem, estimate_plan, plan_region
from accelplane.node_labels import POOL_LABEL
from accelplane.rules import types as t
from accelplane.rules.cloud_rules import node_pool_shapes
from accelplane.rules.rollout.services import backends, service_name
from accelplane.rules.sources import from_plan
from accelplane.rules.view import get

Totals = tuple[float, float, float]


@dataclass(frozen=True)
class CostLine:
    resource: str
    kind: str
    status: str  # added | removed | changed
    before: Totals | None
    after: Totals | None
    before_what: str = ""
    after_what: str = ""
    unpriced: bool = False

    def at(self, index: int) -> tuple[float, float]:
        return ((self.before or (0.0, 0.0, 0.0))[index], (self.after or (0.0, 0.0, 0.0))[index])


@dataclass(frozen=True)
class CostDiff:
    size: str
    base: Totals
    head: Totals
    retrieved: date
    lines: tuple[CostLine, ...]
    mermaid: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def index(self) -> int:
        return SIZES.index(self.size)

    def change(self, index: int | None = None) -> float:
        i = self.index if index is None else index
        return round(self.head[i] - self.base[i], 2)

    def to_json(self) -> dict[str, Any]:
        return {
            "currency": "USD", "prices_retrieved": self.retrieved.isoformat(), "headline_size": self.size,
            "baseline": dict(zip(SIZES, self.base, strict=True)), "new": dict(zip(SIZES, self.head, strict=True)),
            "change": {size: self.change(i) for i, size in enumerate(SIZES)},
            "resources": [{"resource": line.resource, "kind": line.kind, "status": line.status,
                           "baseline": dict(zip(SIZES, line.before, strict=True)) if line.before else None,
                           "new": dict(zip(SIZES, line.after, strict=True)) if line.after else None,
                           "unpriced": line.unpriced} for line in self.lines],
            "mermaid": self.mermaid, "notes": list(self.notes),
        }


def _what(item: LineItem | None) -> str:
    if item is None or item.nodes is None:
        return ""
    return f"{item.machine} x {'/'.join(str(n) for n in item.nodes)}"


def _priced(document: Mapping[str, Any], cloud: str, region: str | None,
            desired: Mapping[str, int]) -> Estimate | None:
    region = region or plan_region(document.get("resources") or [], cloud)
    if region is None:
        return None
    return estimate_plan(document, cloud, region, builtin_table(cloud), desired)


def cost_diff(
    base_document: Mapping[str, Any], head_document: Mapping[str, Any], *, cloud: str, region: str,
    base_desired: Mapping[str, int], head_desired: Mapping[str, int],
) -> CostDiff | None:
    head = _priced(head_document, cloud, region, head_desired)
    if head is None:
        return None
    base = _priced(base_document, cloud, None, base_desired) if base_document.get("resources") else None
    hours = head.hours
    old = {item.resource: item for item in (base.items if base else ())}
    new = {item.resource: item for item in head.items}
    lines = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        before_value = before.monthly(hours) if before else None
        after_value = after.monthly(hours) if after else None
        status = "added" if before is None else "removed" if after is None else "changed"
        unpriced = (before is not None and before_value is None) or (after is not None and after_value is None)
        if status == "changed" and before_value == after_value and _what(before) == _what(after) and not unpriced:
            continue
        shown = after or before
        assert shown is not None
        if not shown.parts and status == "changed":
            continue  # usage-based both sides (a bucket): nothing fixed changes
        lines.append(CostLine(name, shown.kind, status, before_value, after_value, _what(before), _what(after),
                              unpriced))
    budgets = budgets_in(head_document.get("resources") or [])
    size = budgets[0].judged_at if budgets else "maximum"
    notes = [f"{line.resource}: no price" for line in lines if line.unpriced]
    return CostDiff(size=size, base=base.totals() if base else (0.0, 0.0, 0.0), head=head.totals(),
                    retrieved=head.table.retrieved, lines=tuple(lines),
                    mermaid=mermaid_picture(base_document, head_document, head, base), notes=tuple(notes))


# ------------------------------------------------------------------------------------------- picture

_ID = re.compile(r"[^A-Za-z0-9_]")


def _id(prefix: str, name: str) -> str:
    return f"{prefix}_{_ID.sub('_', name)}"


def _label(text: str) -> str:
    # Inside a quoted Mermaid label: no double quotes; '#' starts an entity.
    return text.replace('"', "'").replace("#", "")


def _pools(estimate: Estimate | None) -> dict[str, LineItem]:
    """Pool name -> its line (a pool of several TPU slices: the first slice's, node counts summed)."""
    pools: dict[str, LineItem] = {}
    for item in (estimate.items if estimate else ()):
        if item.pool is None or item.nodes is None:
            continue
        if item.pool in pools:
            first = pools[item.pool]
            summed = tuple(a + b for a, b in zip(first.nodes or (0, 0, 0), item.nodes, strict=True))
            pools[item.pool] = LineItem(first.resource, first.type, first.kind, first.parts, first.pool,
                                        first.machine, summed, first.pricing)  # type: ignore[arg-type]
        else:
            pools[item.pool] = item
    return pools


def _accelerators(document: Mapping[str, Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    for resource in document.get("resources") or []:
        shape = node_pool_shapes().get(str(resource.get("type")))
        labels = get(resource.get("inputs") or {}, *shape.labels_at) if shape else None
        if isinstance(labels, Mapping) and labels.get(POOL_LABEL):
            found[str(labels[POOL_LABEL])] = str(labels.get("accelplane.io/accelerator") or "none")
    return found


def _weights(document: Mapping[str, Any]) -> dict[str, dict[str, tuple[str, int]]]:
    """service -> backend -> (pool, weight) from the plan's inference service components."""
    out: dict[str, dict[str, tuple[str, int]]] = {}
    for resource in from_plan(dict(document), "plan"):
        if resource.type == t.INFERENCE_SERVICE:
            out[service_name(resource)] = {b.name: (b.node_pool, b.weight or 0) for b in backends(resource)}
    return out


def mermaid_picture(base_document: Mapping[str, Any], head_document: Mapping[str, Any], head: Estimate,
                    base: Estimate | None) -> str:
    new_pools, old_pools = _pools(head), _pools(base)
    accelerators = {**_accelerators(base_document), **_accelerators(head_document)}
    lines = ["flowchart LR"]
    changed: list[str] = []
    removed: list[str] = []
    by_accelerator: dict[str, list[str]] = {}
    for pool in sorted(set(new_pools) | set(old_pools)):
        by_accelerator.setdefault(accelerators.get(pool, "none"), []).append(pool)
    for accelerator, pools in sorted(by_accelerator.items()):
        title = "CPU" if accelerator == "none" else accelerator
        lines.append(f'  subgraph {_id("acc", accelerator)}["{_label(title)}"]')
        for pool in pools:
            after, before = new_pools.get(pool), old_pools.get(pool)
            shown = after or before
            assert shown is not None
            counts = "/".join(str(n) for n in (shown.nodes or ()))
            text = f"{pool}<br/>{shown.machine} x {counts}"
            if before is not None and after is not None and (before.nodes, before.machine) != (after.nodes,
                                                                                               after.machine):
                # A new machine type is a changed pool too (every node of it is replaced or recreated).
                was = "/".join(str(n) for n in before.nodes or ())
                machine = f"{before.machine} x " if before.machine != after.machine else ""
                text += f"<br/>was {machine}{was}"
                changed.append(_id("pool", pool))
            elif before is None and base is not None:
                text += "<br/>new"
                changed.append(_id("pool", pool))
            elif after is None:
                text += "<br/>removed"
                removed.append(_id("pool", pool))
            lines.append(f'    {_id("pool", pool)}["{_label(text)}"]')
        lines.append("  end")
    old_weights, new_weights = _weights(base_document), _weights(head_document)
    for service in sorted(set(new_weights) | set(old_weights)):
        lines.append(f'  {_id("svc", service)}(["{_label(service)}"])')
        current, previous = new_weights.get(service, {}), old_weights.get(service, {})
        for backend in sorted(set(current) | set(previous)):
            pool, weight = current.get(backend) or previous[backend]
            before = previous.get(backend, (pool, None))[1]
            label = f"{backend} {weight if backend in current else 0}%"
            if before is not None and (backend not in current or before != weight):
                label = f"{backend} {before}% → {weight if backend in current else 0}%"
            lines.append(f'  {_id("svc", service)} -->|"{_label(label)}"| {_id("pool", pool)}')
    lines.append("  classDef changed stroke:#d97706,stroke-width:3px")
    lines.append("  classDef removed stroke:#dc2626,stroke-dasharray:5 5")
    if changed:
        lines.append(f"  class {','.join(changed)} changed")
    if removed:
        lines.append(f"  class {','.join(removed)} removed")
    return "\n".join(lines)


def money(value: float) -> str:
    return f"${value:,.2f}"


def signed(value: float) -> str:
    return f"{'+' if value >= 0 else '-'}${abs(value):,.2f}"


def percent(change: float, base: float) -> str:
    if base == 0:
        return "new" if change else "0%"
    return f"{change / base:+.0%}"


def markdown_section(cost: CostDiff, details: bool = True) -> list[str]:
    i = cost.index
    change = cost.change()
    if change > 0:
        headline = f"Monthly cost will increase by **{money(change)}** ({percent(change, cost.base[i])}) 📈"
    elif change < 0:
        headline = f"Monthly cost will decrease by **{money(-change)}** ({percent(change, cost.base[i])}) 📉"
    else:
        headline = "Monthly cost will not change"
    lines = ["", f"#### Monthly cost (USD, list prices of {cost.retrieved.isoformat()})", "",
             f"{headline} at {cost.size} pool sizes.", "",
             "| Pool sizes | Baseline cost | Cost change | New monthly cost |", "|---|---:|---:|---:|"]
    for index, size in enumerate(SIZES):
        delta = cost.change(index)
        lines.append(f"| {size} | {money(cost.base[index])} | {signed(delta)} ({percent(delta, cost.base[index])}) "
                     f"| {money(cost.head[index])} |")
    if cost.lines:
        rows = ["| Resource | Kind | Change | Baseline | New | Cost change |", "|---|---|---|---:|---:|---:|"]
        for line in cost.lines:
            before, after = line.at(i)
            what = f"{line.before_what} → {line.after_what}" if line.before_what and line.after_what and \
                line.before_what != line.after_what else line.after_what or line.before_what
            if line.unpriced:
                amounts = "no price | no price | no price"
            else:
                amounts = f"{money(before)} | {money(after)} | {signed(after - before)}"
            rows.append(f"| `{line.resource}` | {line.kind} | {line.status}{': ' + what if what else ''} | {amounts} |")
        if details:
            lines += ["", f"<details><summary>Cost per resource ({len(cost.lines)}, at {cost.size} sizes)</summary>",
                      "", *rows, "", "</details>"]
        else:
            lines += ["", *rows]
    lines += ["", "```mermaid", cost.mermaid, "```"]
    lines += [f"_Note: {note}_" for note in cost.notes]
    return lines


def text_section(cost: CostDiff) -> list[str]:
    i = cost.index
    change = cost.change()
    lines = [f"Monthly cost (USD, list prices of {cost.retrieved.isoformat()}, at {cost.size} pool sizes): "
             f"{money(cost.base[i])} → {money(cost.head[i])} ({signed(change)}, {percent(change, cost.base[i])})"]
    for line in cost.lines:
        before, after = line.at(i)
        amount = "no price" if line.unpriced else f"{money(before)} → {money(after)} ({signed(after - before)})"
        lines.append(f"  {line.status:<8} {line.resource}: {amount}")
    return lines


def desired_sizes(platform_data: Mapping[str, Any]) -> dict[str, int]:
    """Pool name -> declared desired size from a revision's raw `accelplane:platform` data."""
    out = {}
    pools: Sequence[Any] = platform_data.get("node_pools") or []
    for pool in pools:
        if isinstance(pool, Mapping) and isinstance(pool.get("scaling"), Mapping):
            desired = pool["scaling"].get("desired")
            if isinstance(desired, int):
                out[str(pool.get("name"))] = desired
    return out
