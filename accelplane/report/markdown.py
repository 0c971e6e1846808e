"""Markdown for a pull-request comment: verdict first, blocking findings in a table, the rest folded."""

from __future__ import annotations

from accelplane.report.document import Item, Report, counted


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(items: list[Item]) -> list[str]:
    lines = ["| Severity | Rule | Resource | Finding | Remediation |", "|---|---|---|---|---|"]
    for item in items:
        lines.append(f"| {item.severity} | `{item.rule}` | `{_cell(item.name)}` | {_cell(item.message)} | "
                     f"{_cell(item.remediation)} |")
    return lines


def render_markdown(report: Report) -> str:
    summary = report.summary()
    verdict = "✅ passed" if report.passed else "❌ failed"
    lines = [
        f"### {report.tool}: {_cell(report.subject)} — {verdict}",
        "",
        f"{counted(summary['resources'], 'resource')}, {counted(summary['rules'], 'rule')}: "
        f"**{counted(summary['blocking'], 'blocking finding')}**, {counted(summary['findings'], 'finding')}, "
        f"{summary['waived']} waived"
        + (" (strict: advisory findings block)" if report.strict else "") + ".",
    ]
    for failure in report.failures:
        lines += ["", f"> **Failed:** {_cell(failure)}"]
    blocking = report.blocking
    shown = [i for i in report.items if not i.blocking and not i.waived]
    waived = [i for i in report.items if i.waived]
    if blocking:
        lines += ["", "#### Blocking", "", *_table(blocking)]
    if shown:
        lines += ["", f"<details><summary>Advisory ({len(shown)})</summary>", "", *_table(shown), "", "</details>"]
    if waived:
        lines += ["", f"<details><summary>Waived ({len(waived)})</summary>", ""]
        lines += [f"- `{i.rule}` on `{_cell(i.name)}`: {_cell(i.waiver_reason or '')}" for i in waived]
        lines += ["", "</details>"]
    for note in report.notes:
        lines += ["", f"_Note: {_cell(note)}_"]
    return "\n".join(lines) + "\n"
