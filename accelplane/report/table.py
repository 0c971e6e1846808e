"""Plain-text table for terminals and CI logs."""

from __future__ import annotations

from accelplane.report.document import Item, Report

_COLUMNS = ("STATUS", "SEVERITY", "RULE", "RESOURCE", "MESSAGE")


def _status(item: Item) -> str:
    if item.waived:
        return "waived"
    return "BLOCKING" if item.blocking else item.enforcement


def render_table(report: Report) -> str:
    rows = [(_status(i), i.severity, i.rule, i.name, i.message) for i in report.items]
    lines = [f"{report.tool}: {report.subject} ({report.resources} resources, {len(report.rules)} rules)"]
    if rows:
        widths = [max(len(c), *(len(r[n]) for r in rows)) for n, c in enumerate(_COLUMNS[:-1])]
        widths = [min(w, 48) for w in widths]
        lines.append("")
        lines.append("  ".join(c.ljust(w) for c, w in zip(_COLUMNS[:-1], widths, strict=True)) + "  " + _COLUMNS[-1])
        for row in rows:
            lines.append("  ".join(v.ljust(w) for v, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1])
        # The fix, as every other format carries it (SARIF's help, JSON's remediation), once per rule.
        fixes = {item.rule: item.remediation for item in report.items if item.remediation}
        if fixes:
            lines.append("")
            lines.extend(f"fix {rule}: {remediation}" for rule, remediation in fixes.items())
    for failure in report.failures:
        lines.append(f"FAILED: {failure}")
    for note in report.notes:
        lines.append(f"note: {note}")
    summary = report.summary()
    lines.append("")
    lines.append(
        report.verdict_line()
        + f" ({summary['waived']} waived; " + ", ".join(f"{n} {s}" for s, n in summary["by_severity"].items() if n)
        + (")" if any(summary["by_severity"].values()) else "none open)")
        + (" [strict: advisory findings block]" if report.strict else "")
    )
    return "\n".join(lines) + "\n"
