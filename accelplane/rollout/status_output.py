"""`accelplane rollout status` as a table (terminals, CI logs), JSON (tools) or Markdown (a PR comment)."""

from __future__ import annotations

import json
from typing import Any

from accelplane.rollout.rollout_commands import Situation, format_timestamp
from accelplane.tool import report_header


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2%}"


def _latency(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f} ms"


def _count(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def to_json(found: Situation) -> dict[str, Any]:
    rollout = found.service.rollout
    assert rollout is not None
    here = found.position
    backends = []
    for name, weight in found.declared.items():
        traffic = found.traffic.get(name) if found.traffic is not None else None
        backends.append({
            "name": name,
            "role": "baseline" if name == here.baseline else "canary" if name == here.canary else "other",
            "declared_weight": weight,
            "live_weight": found.live.get(name) if found.live is not None else None,
            "requests": traffic.requests if traffic else None,
            "errors_5xx": traffic.errors if traffic else None,
            "error_rate": traffic.error_rate if traffic else None,
            "throttled_429": traffic.throttled if traffic else None,
            "throttled_rate": traffic.throttled_rate if traffic else None,
            "p50_seconds": traffic.p50_seconds if traffic else None,
            "p99_seconds": traffic.p99_seconds if traffic else None,
        })
    decision = found.decision
    return {
        "stack": found.stack.stack,
        "file": str(found.stack.path),
        "service": found.service.name,
        "now": format_timestamp(found.now),
        "rollout": {
            "baseline": here.baseline,
            "canary": here.canary,
            "canary_weight": here.canary_weight,
            "next_step": here.next_step,
            "steps": list(rollout.steps),
            "bake": rollout.bake,
            "since": rollout.since,
            "bake_left_seconds": int(found.bake_left.total_seconds()) if found.bake_left else 0,
            "metrics": rollout.metrics,
            "window": rollout.gates.window,
        },
        "live": {"read": found.live is not None, "note": found.live_note, "route_state": found.route_state},
        "parity": {"declared": bool(found.service.rollout and found.service.rollout.parity),
                   "note": found.parity_note},
        "backends": backends,
        "gates": [gate.to_json() for gate in found.judgement.gates] if found.judgement else [],
        "gate_definitions": rollout.gates.model_dump(),
        "history": [record.model_dump(mode="json", exclude_none=True) for record in rollout.history],
        "decision": None if decision is None else {
            "action": decision.action.value, "reason": decision.reason, "weights": decision.weights,
        },
    }


def _rows(found: Situation) -> tuple[list[str], list[list[str]]]:
    data = to_json(found)
    header = ["BACKEND", "ROLE", "WEIGHT", "LIVE", "REQUESTS", "5XX RATE", "429 RATE", "P50", "P99"]
    rows = [[b["name"], b["role"], f"{b['declared_weight']}%",
             "-" if b["live_weight"] is None else f"{b['live_weight']}%",
             _count(b["requests"]), _share(b["error_rate"]), _share(b["throttled_rate"]), _latency(b["p50_seconds"]),
             _latency(b["p99_seconds"])]
            for b in data["backends"]]
    return header, rows


def _headline(found: Situation) -> list[str]:
    rollout = found.service.rollout
    assert rollout is not None
    here = found.position
    step = "complete" if here.complete else f"next step {here.next_step}%"
    bake = (f"baking, {int(found.bake_left.total_seconds())}s left of {rollout.bake}" if found.bake_left
            else f"baked ({rollout.bake})" if rollout.since else "no since: bake counts as passed")
    return [
        f"rollout of {found.service.name!r} in stack {found.stack.stack}: canary {here.canary!r} at "
        f"{here.canary_weight}% ({step}), baseline {here.baseline!r}; steps {rollout.steps}",
        f"since {rollout.since or '-'}: {bake}; gates over {rollout.gates.window} of {rollout.metrics} "
        f"metrics at {format_timestamp(found.now)}",
    ]


def _definitions(found: Situation) -> list[str]:
    """The gates as declared, for a status that judged none (`--no-live`)."""
    gates = found.service.rollout.gates  # type: ignore[union-attr]
    return [
        f"at least {gates.min_requests} canary requests in {gates.window} for a verdict",
        f"canary 5xx rate at most {gates.max_error_rate:.2%}",
        f"canary 429 rate at most {gates.max_throttled_rate:.2%} (where the metrics count 429s)",
        f"canary p99 at most {gates.max_p99_seconds:g} s and at most {gates.max_p99_ratio:g} x the baseline's",
    ]


def _history(found: Situation) -> list[str]:
    """The decisions `advance` and `abort` wrote, newest last."""
    lines = []
    for record in found.service.rollout.history:  # type: ignore[union-attr]
        weights = " / ".join(f"{name} {weight}%" for name, weight in record.weights.items())
        gates = ", ".join(f"{name} {value:g}" for name, value in record.gates.items())
        lines.append(f"{record.at}  {record.action.value:<8}  {weights}" + (f"  ({gates})" if gates else ""))
    return lines


def render_table(found: Situation) -> str:
    lines = _headline(found)
    header, rows = _rows(found)
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    lines.append("")
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    if found.live_note:
        lines.append(f"live weights not read: {found.live_note}")
    if found.route_state:
        lines.append(f"live route: {found.route_state}")
    if found.parity_note:
        lines.append(f"parity: {found.parity_note}")
    if found.judgement:
        lines.append("")
        for gate in found.judgement.gates:
            lines.append(f"  {gate.state.value:<10}  {gate.name:<15}  {gate.detail}")
    else:
        lines += ["", "gates (declared, not judged):", *(f"  {line}" for line in _definitions(found))]
    history = _history(found)
    if history:
        lines += ["", "history (newest last):", *(f"  {line}" for line in history)]
    if found.decision:
        lines.append("")
        lines.append(f"{found.decision.action.value}: {found.decision.reason}")
    return "\n".join(lines) + "\n"


_MARK = {"holds": "✅", "fails": "❌", "no data": "⏳", "not judged": "⚪"}


def render_markdown(found: Situation) -> str:
    head = _headline(found)
    lines = [f"### Rollout: `{found.service.name}` ({found.stack.stack})", "", head[0], "", head[1], ""]
    header, rows = _rows(found)
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    if found.live_note:
        lines += ["", f"Live weights not read: {found.live_note}"]
    if found.route_state:
        lines += ["", f"Live route: {found.route_state}"]
    if found.parity_note:
        lines += ["", f"Parity: {found.parity_note}"]
    if found.judgement:
        lines += ["", "| gate | state | detail |", "|---|---|---|"]
        lines += [f"| `{g.name}` | {_MARK.get(g.state.value, '')} {g.state.value} | {g.detail} |"
                  for g in found.judgement.gates]
    else:
        lines += ["", "Gates (declared, not judged):", "", *(f"- {line}" for line in _definitions(found))]
    history = _history(found)
    if history:
        lines += ["", "<details><summary>History (newest last)</summary>", "", "```", *history, "```", "",
                  "</details>"]
    if found.decision:
        lines += ["", f"**{found.decision.action.value}**: {found.decision.reason}"]
    return "\n".join(lines) + "\n"


def render_json(found: Situation) -> str:
    return json.dumps({**report_header(), **to_json(found)}, indent=2, ensure_ascii=False) + "\n"


FORMATS = {"table": render_table, "json": render_json, "markdown": render_markdown}
