"""Render a `PreflightReport`: table, Markdown (a PR comment), JUnit and JSON here, SARIF through
`accelplane.report`. Every format lists every check, says where it looked (account or project,
region, endpoint) and gives the fix beside each check that does not fit.

Cells are one bounded line already (`PreflightCheck`); Markdown cells also escape `|`, `<` and `>`,
so nothing an API wrote can break the table or hide as an HTML tag.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict

from accelplane.preflight.results import CHECKS, PreflightCheck, PreflightReport, Status
from accelplane.report import render
from accelplane.report.document import Item, Report, RuleInfo

_ORDER = {Status.failed: 0, Status.unknown: 1, Status.warning: 2, Status.passed: 3, Status.skipped: 4}


def _sorted(report: PreflightReport) -> list[PreflightCheck]:
    return sorted(report.checks, key=lambda c: (_ORDER[c.status], c.check, c.subject))


def _header(report: PreflightReport) -> str:
    return f"accelplane preflight: stack {report.stack} ({report.cloud}) — {report.where}, endpoint {report.endpoint}"


def render_table(report: PreflightReport) -> str:
    """A block per check: status, check and subject; needs, has and headroom; then what was found
    and the fix for a check that does not fit."""
    lines = [_header(report), ""]
    for c in _sorted(report):
        lines.append(f"{c.status.value.upper():<7} {c.check:<17} {c.subject}")
        figures = " · ".join(f"{label} {value}" for label, value in
                             (("needs", c.needs), ("has", c.has), ("headroom", c.headroom)) if value)
        if figures:
            lines.append(f"{'':<8}{figures}")
        if c.status is not Status.passed:
            lines.append(f"{'':<8}{c.message}")
        if c.fix and c.status in (Status.failed, Status.unknown, Status.warning):
            lines.append(f"{'':<8}fix: {c.fix}")
    lines += ["", report.summary_line()]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


_ICONS = {Status.failed: "❌ short", Status.unknown: "❔ unknown", Status.warning: "⚠️ warn",
          Status.passed: "✅ fits", Status.skipped: "⏭️ skip"}


def render_markdown(report: PreflightReport) -> str:
    verdict = "❌ blocked" if report.failed else "✅ clear"
    lines = [
        f"### accelplane preflight: stack `{_md(report.stack)}` — {verdict}",
        "",
        f"{_md(report.where)}; endpoint {_md(report.endpoint)}.",
        "",
        "| Status | Check | Subject | Needs | Has | Headroom | Fix |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in _sorted(report):
        fix = c.fix if c.status in (Status.failed, Status.unknown, Status.warning) else ""
        detail = "" if c.status is Status.passed else f"<br>{_md(c.message)}"
        lines.append(f"| {_ICONS[c.status]} | `{c.check}` | {_md(c.subject)}{detail} | {_md(c.needs)} | "
                     f"{_md(c.has)} | {_md(c.headroom)} | {_md(fix)} |")
    lines += ["", f"_{_md(report.summary_line())}_"]
    return "\n".join(lines) + "\n"


def render_junit(report: PreflightReport) -> str:
    """One suite per check kind, one case per check; an unknown check is a failure unless
    `--allow-unknown`, then a skipped case (it was not confirmed either way)."""
    root = ET.Element("testsuites", name=f"accelplane preflight: stack {report.stack}")
    suites: dict[str, ET.Element] = {}
    tallies: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    blocking = set(map(id, report.blocking))
    for check in _sorted(report):
        suite = suites.get(check.check)
        if suite is None:
            suite = suites[check.check] = ET.SubElement(root, "testsuite", name=check.check)
            bag = ET.SubElement(suite, "properties")
            for key, value in (("stack", report.stack), ("where", report.where), ("endpoint", report.endpoint)):
                ET.SubElement(bag, "property", name=key, value=value)
        case = ET.SubElement(suite, "testcase", classname=f"preflight.{check.check}", name=check.subject)
        tally = tallies[check.check]
        tally[0] += 1
        body = f"needs: {check.needs or '-'}\nhas: {check.has or '-'}\nheadroom: {check.headroom or '-'}"
        if id(check) in blocking:
            failure = ET.SubElement(case, "failure", type=check.status.value, message=check.message)
            failure.text = f"{body}\nfix: {check.fix or '-'}"
            tally[1] += 1
        elif check.status in (Status.skipped, Status.unknown):
            ET.SubElement(case, "skipped", message=check.message)
            tally[2] += 1
        else:
            ET.SubElement(case, "system-out").text = f"{check.status.value}: {check.message}\n{body}"
    for name, suite in suites.items():
        tests, failures, skipped = tallies[name]
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
    root.set("tests", str(sum(t[0] for t in tallies.values())))
    root.set("failures", str(sum(t[1] for t in tallies.values())))
    root.set("errors", "0")
    root.set("skipped", str(sum(t[2] for t in tallies.values())))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render_json(report: PreflightReport) -> str:
    return json.dumps(report.to_json(), indent=2, default=str) + "\n"


def _urn(check: PreflightCheck) -> str:
    return ".".join(str(part) for part in check.at) or check.subject


def render_sarif(report: PreflightReport) -> str:
    """Every check that does not fit is a result at the stack-file line that declares what it is
    about (the pool, the network): blocking ones are errors, warnings and allowed unknowns warnings."""
    blocking = set(map(id, report.blocking))
    items = [
        Item(rule=c.check, severity="high" if id(c) in blocking else "medium",
             enforcement="mandatory" if id(c) in blocking else "advisory", urn=_urn(c), type="preflight",
             name=c.subject, message=c.message, remediation=c.fix or CHECKS[c.check][2], blocking=id(c) in blocking)
        for c in _sorted(report)
        if c.status in (Status.failed, Status.unknown, Status.warning)
    ]
    rules = [RuleInfo(id=key, name=title, description=text, severity="high", enforcement="mandatory",
                      remediation=fix, group="preflight") for key, (title, text, fix) in CHECKS.items()]
    shared = Report(tool="accelplane preflight", subject=f"stack {report.stack}", items=items, rules=rules,
                    artifact=report.stack_file, notes=[report.summary_line()],
                    lines={_urn(c): report.lines.get(c.at, 1) for c in report.checks})
    document = json.loads(render(shared, "sarif"))
    for run in document.get("runs", []):
        run["properties"] = {"stack": report.stack, "where": report.where, "endpoint": report.endpoint,
                             "checks": report.counts()}
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {
    "table": render_table,
    "markdown": render_markdown,
    "junit": render_junit,
    "json": render_json,
    "sarif": render_sarif,
}


def render_preflight(report: PreflightReport, fmt: str) -> str:
    return RENDERERS[fmt](report)
