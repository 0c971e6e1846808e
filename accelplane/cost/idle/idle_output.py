"""`accelplane cost idle` output: text, JSON and Markdown."""

from __future__ import annotations

import json

from accelplane.cost.idle.idle_command import IdleReport


def render_idle(report: IdleReport, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({
            "stack": report.stack, "prometheus": report.url, "at": report.at.isoformat(), "currency": "USD",
            "idle": len(report.idle), "monthly_saving": report.saving,
            "nodes": [{"node": n.node, "pool": n.pool, "family": n.family, "peak_percent": n.peak_percent,
                       "below_percent": n.below_percent, "window_hours": n.hours, "idle": n.idle,
                       "monthly_saving": n.monthly_saving} for n in report.nodes],
            "notes": report.notes,
        }, indent=2, sort_keys=True)
    header = ("NODE", "POOL", "PEAK %", "THRESHOLD", "WINDOW", "STATE", "SAVES A MONTH")
    rows = [header] + [
        (n.node, n.pool, f"{n.peak_percent:g}", f"< {n.below_percent:g}%", f"{n.hours}h", "IDLE" if n.idle else "busy",
         (f"${n.monthly_saving:,.2f}" if n.monthly_saving is not None else "no price") if n.idle else "")
        for n in report.nodes]
    if fmt == "markdown":
        lines = [f"### Idle accelerators of `{report.stack}`", "", "| " + " | ".join(header) + " |",
                 "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        lines += ["", f"**{report.summary_line()}**", *(f"- {note}" for note in report.notes)]
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    lines += ["", report.summary_line(), *(f"note: {note}" for note in report.notes)]
    return "\n".join(lines)
