"""Render a `VerifyReport`: table, Markdown, JUnit and JSON here, SARIF through `accelplane.report`.

Every format says what was checked (stack, account, region, endpoint) and counts the same things:
each `CheckResult` is one check, and the header, the summary line, JSON `summary.checks` and
JUnit `tests`/`failures`/`skipped` all come from `VerifyReport.counts()` (a warning is a passing
JUnit case with the warning in its `system-out`). The table and Markdown list every result that
did not pass; passes are counted, not listed.

`to_report` presents each check as a rule (`RuleInfo`) with failed results as blocking items and
warnings as advisory ones, for SARIF and the `check`-shaped `findings` list of the JSON.

Messages are one bounded line already (`CheckResult`); Markdown cells additionally escape `|`,
`<` and `>`, so nothing a live value holds can break a table or hide as an HTML tag.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Any

from accelplane.report import render
from accelplane.report.document import Item, Report, RuleInfo
from accelplane.report.findings import rule_info
from accelplane.rules.registry import RULES
from accelplane.verify.results import CheckId, CheckResult, Status, VerifyReport
from accelplane.verify.text import one_line

# id -> (name, description, severity, remediation, group)
CHECKS: dict[str, tuple[str, str, str, str, str]] = {
    CheckId.drift_missing: (
        "declared-resource-exists",
        "Checks whether every declared resource exists live.",
        "high",
        "Run `pulumi up` to recreate it (or restore it), or remove it from the declaration.",
        "drift",
    ),
    CheckId.drift_changed: (
        "declared-settings-hold",
        "Checks whether every declared setting of a live resource is as declared.",
        "high",
        "Run `pulumi up` to restore the declared value, or change the declaration through review if the change is "
        "wanted.",
        "drift",
    ),
    CheckId.drift_unexpected: (
        "nothing-undeclared",
        "Checks whether the platform carries resources, rules or policies the declaration does not have.",
        "high",
        "Remove what was added outside the code, or declare it.",
        "drift",
    ),
    CheckId.stack_missing: (
        "stack-deployed",
        "Checks whether the stack is deployed at all in the account and region verified.",
        "critical",
        "Check the account (AWS_PROFILE or --profile) and the stack's region, or run `pulumi up --stack NAME` first.",
        "drift",
    ),
    CheckId.read_error: (
        "everything-readable",
        "Checks whether every read the verification needs succeeded.",
        "high",
        "Grant the verifying role read access (ReadOnlyAccess, and s3:GetObject plus kms:Decrypt for the "
        "checkpoint drill), then rerun.",
        "verify",
    ),
    CheckId.cluster_status: (
        "cluster-active",
        "Checks whether the EKS cluster is ACTIVE.",
        "critical",
        "See `aws eks describe-cluster` for the cluster's status.",
        "live",
    ),
    CheckId.node_group_status: (
        "node-groups-healthy",
        "Checks whether every node group is ACTIVE without health issues.",
        "high",
        "See the health issues in `aws eks describe-nodegroup` (capacity, subnets, IAM, AMI).",
        "live",
    ),
    CheckId.launch_template_version: (
        "node-groups-on-latest-template",
        "Checks whether node groups run the latest version of their launch template.",
        "medium",
        "Run `pulumi up` to roll the node group to the declared launch template.",
        "live",
    ),
    CheckId.target_health: (
        "targets-healthy",
        "Checks whether the inference target group has targets and all are healthy.",
        "high",
        "Check the inference pods' readiness, the TargetGroupBinding and the health check path.",
        "live",
    ),
    CheckId.kms_key_state: (
        "keys-enabled",
        "Checks whether every declared KMS key is enabled.",
        "critical",
        "Cancel the deletion (`aws kms cancel-key-deletion`) and enable the key.",
        "live",
    ),
    CheckId.secret_value: (
        "secrets-have-values",
        "Checks whether every secret has a current value (without reading it).",
        "high",
        "Put the value: `aws secretsmanager put-secret-value` or `pulumi config set --secret "
        "accelplane:secret-<name>` and `pulumi up`.",
        "live",
    ),
    CheckId.secret_rotation: (
        "secret-rotation-on-schedule",
        "Checks whether secret rotation is as declared and not overdue.",
        "medium",
        "Fix the rotation function or its schedule; `aws secretsmanager rotate-secret` to catch up.",
        "live",
    ),
    CheckId.endpoint_tls: (
        "endpoint-tls-verifies",
        "Checks whether the inference endpoint's certificate verifies for its host.",
        "critical",
        "Serve an ACM certificate for the host clients use (`--probe-url` names it).",
        "endpoint",
    ),
    CheckId.endpoint_health: (
        "endpoint-healthy",
        "Checks whether every HTTPS probe of the health path answers as the matcher expects within the timeout.",
        "high",
        "Check the targets' health and the pods behind them.",
        "endpoint",
    ),
    CheckId.endpoint_certificate: (
        "certificate-not-expiring",
        "Checks whether the endpoint's certificate is valid for 30 more days.",
        "medium",
        "Renew the certificate (for ACM, fix DNS validation so it renews itself).",
        "endpoint",
    ),
    CheckId.endpoint_latency: (
        "endpoint-latency",
        "Reports the latency p50/p99 of the probes.",
        "low",
        "None: informational.",
        "endpoint",
    ),
    CheckId.checkpoint_present: (
        "checkpoint-present",
        "Checks whether a complete checkpoint (with its manifest) exists under the training prefix.",
        "high",
        "Check the trainer's checkpoint job and its write access to the prefix.",
        "checkpoint",
    ),
    CheckId.checkpoint_age: (
        "checkpoint-recent",
        "Checks whether the newest checkpoint is younger than the promised interval.",
        "high",
        "Check the trainer's checkpoint schedule; a stalled job stops writing them.",
        "checkpoint",
    ),
    CheckId.checkpoint_integrity: (
        "checkpoint-restorable",
        "Checks whether every file of the newest checkpoint reads back with the manifest's size and sha256.",
        "critical",
        "Rewrite the checkpoint; find what truncated or changed it.",
        "checkpoint",
    ),
}
_WARN_SEVERITY = "medium"
_RULE_FAMILY = {rule.id: rule.family.value for rule in RULES}
# Passing results worth a line of their own (the rest are only counted).
_INFORMATIONAL = (CheckId.endpoint_latency, CheckId.rules)


def _check_info(check_id: str) -> RuleInfo:
    name, description, severity, remediation, group = CHECKS[check_id]
    return RuleInfo(
        id=check_id,
        name=name,
        description=description,
        severity=severity,
        enforcement="mandatory",
        remediation=remediation,
        group=group,
    )


def _severity(result: CheckResult) -> str:
    if result.finding is not None:
        return str(result.finding["severity"])
    if result.status is Status.failed:
        return CHECKS[result.check][2] if result.check in CHECKS else "high"
    if result.status is Status.warning:
        return _WARN_SEVERITY
    return "-"


def _remediation(result: CheckResult) -> str:
    if result.finding is not None:
        return str(result.finding["remediation"])
    return CHECKS[result.check][3] if result.check in CHECKS else ""


def _group(result: CheckResult) -> str:
    if result.finding is not None:
        return _RULE_FAMILY.get(result.check, "rules")
    if result.check in CHECKS:
        return CHECKS[result.check][4]
    return result.check.split(".", 1)[0]


def _label(result: CheckResult) -> str:
    """What a result is about, for a table cell or a test case name."""
    return result.name or result.type or ""


def _not_passed(report: VerifyReport) -> list[CheckResult]:
    return [r for r in report.results if r.status is not Status.passed]


def _notes(report: VerifyReport) -> list[str]:
    notes = [r.message for r in report.results if r.status is Status.passed and r.check in _INFORMATIONAL]
    notes.append(report.coverage_line())
    calls = report.api_calls
    bound = calls.get("bound_seconds")
    notes.append(
        f"{calls.get('total', 0)} cloud API calls ({calls.get('retries', 0)} retries; {calls.get('errors', 0)} "
        f"answered with an error), {report.wall_seconds:.1f} s"
        + (f" (reading bounded to {bound:g} s)" if bound is not None else "")
    )
    return notes


def to_report(report: VerifyReport) -> Report:
    """The shared `Report`: every failed and warned result an item (blocking exactly when failed)."""
    items: list[Item] = []
    notes: list[str] = []
    for result in report.results:
        if result.finding is not None:
            finding = result.finding
            items.append(
                Item(
                    rule=result.check,
                    severity=finding["severity"],
                    enforcement=finding["enforcement"],
                    urn=result.urn or "",
                    type=result.type,
                    name=result.name,
                    message=one_line(finding["message"]),
                    remediation=finding["remediation"],
                    waived=finding["waived"],
                    blocking=result.status is Status.failed,
                    waiver_reason=result.waiver_reason,
                )
            )
        elif result.status is Status.skipped:
            notes.append(f"{result.check} {_label(result)}: {result.message}".replace(" : ", ": "))
        elif result.status in (Status.failed, Status.warning):
            items.append(
                Item(
                    rule=result.check,
                    severity=_severity(result),
                    enforcement="mandatory" if result.status is Status.failed else "advisory",
                    urn=result.urn or "",
                    type=result.type,
                    name=result.name,
                    message=result.message,
                    remediation=_remediation(result),
                    blocking=result.status is Status.failed,
                )
            )
    notes += _notes(report)
    notes.append(report.summary_line())
    return Report(
        tool="accelplane verify",
        subject=f"stack {report.stack} (live)",
        items=items,
        rules=[_check_info(check_id) for check_id in CHECKS] + [rule_info(rule) for rule in RULES],
        resources=report.resources,
        notes=notes,
    )


# -- table -------------------------------------------------------------------------------------

_COLUMNS = ("STATUS", "SEVERITY", "CHECK", "RESOURCE", "MESSAGE")


def render_table(report: VerifyReport) -> str:
    lines = [f"accelplane verify: stack {report.stack} — {report.where()}", report.counts_line()]
    rows = [(r.status.value.upper(), _severity(r), r.check, _label(r), r.message) for r in _not_passed(report)]
    if rows:
        widths = [min(48, max(len(c), *(len(row[n]) for row in rows))) for n, c in enumerate(_COLUMNS[:-1])]
        lines.append("")
        lines.append("  ".join(c.ljust(w) for c, w in zip(_COLUMNS[:-1], widths, strict=True)) + "  " + _COLUMNS[-1])
        for row in rows:
            lines.append("  ".join(v.ljust(w) for v, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1])
    lines.append("")
    lines += [f"note: {note}" for note in _notes(report)]
    lines.append("")
    lines.append(report.summary_line())
    return "\n".join(lines) + "\n"


# -- Markdown ----------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Text for a Markdown table cell or list item: one line, no table or HTML syntax."""
    return one_line(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _code(text: str) -> str:
    """A code span for a table cell: no backtick inside, `|` escaped (GFM splits cells first)."""
    if not text:
        return ""
    return "`" + one_line(text).replace("`", "'").replace("|", "\\|") + "`"


def _md_table(results: list[CheckResult]) -> list[str]:
    lines = ["| Severity | Check | Resource | Finding | Remediation |", "|---|---|---|---|---|"]
    for r in results:
        lines.append(
            f"| {_md(_severity(r))} | {_code(r.check)} | {_code(_label(r))} | {_md(r.message)} | "
            f"{_md(_remediation(r))} |"
        )
    return lines


def render_markdown(report: VerifyReport) -> str:
    counts = report.counts()
    verdict = "❌ failed" if report.failed else "✅ passed"
    endpoint = _code(report.endpoint) if report.endpoint.startswith("http") else _md(report.endpoint)
    lines = [
        f"### accelplane verify: stack {_code(report.stack)} — {verdict}",
        "",
        f"Account {_code(report.account or 'unknown')}, region {_code(report.region or 'unknown')}, "
        f"endpoint {endpoint}.",
        "",
        _md(report.counts_line()).replace(f"{counts['fail']} failed", f"**{counts['fail']} failed**", 1) + ".",
    ]
    by_status: dict[Status, list[CheckResult]] = defaultdict(list)
    for result in _not_passed(report):
        by_status[result.status].append(result)
    if by_status[Status.failed]:
        lines += ["", "#### Failed", "", *_md_table(by_status[Status.failed])]
    if by_status[Status.warning]:
        warned = by_status[Status.warning]
        lines += ["", f"<details><summary>Warnings ({len(warned)})</summary>", "", *_md_table(warned), "", "</details>"]
    if by_status[Status.skipped]:
        skipped = by_status[Status.skipped]
        lines += ["", f"<details><summary>Skipped ({len(skipped)})</summary>", ""]
        lines += [f"- {_code(r.check)} {_code(_label(r))}: {_md(r.message)}".replace(" :", ":") for r in skipped]
        lines += ["", "</details>"]
    lines += ["", *(f"_{_md(note)}_" for note in _notes(report))]
    return "\n".join(lines) + "\n"


# -- JUnit -------------------------------------------------------------------------------------


def render_junit(report: VerifyReport) -> str:
    """One test suite per check family, one test case per result: tests, failures and skipped are
    the report's counts. Every suite carries the stack, account, region and endpoint as properties."""
    counts = report.counts()
    root = ET.Element("testsuites", name=f"accelplane verify: stack {report.stack}")
    suites: dict[str, ET.Element] = {}
    tallies: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # tests, failures, skipped
    properties = {
        "stack": report.stack,
        "account": report.account or "unknown",
        "region": report.region or "unknown",
        "endpoint": report.endpoint,
    }
    for result in sorted(report.results, key=lambda r: (_group(r), r.check, _label(r), r.message)):
        group = _group(result)
        suite = suites.get(group)
        if suite is None:
            suite = suites[group] = ET.SubElement(root, "testsuite", name=group)
            bag = ET.SubElement(suite, "properties")
            for key, value in properties.items():
                ET.SubElement(bag, "property", name=key, value=value)
        label = _label(result) or one_line(result.message, 80)
        case = ET.SubElement(suite, "testcase", classname=f"{group}.{result.check}", name=f"{result.check} {label}")
        tally = tallies[group]
        tally[0] += 1
        text = f"{result.message}\nresource: {result.urn or '-'}"
        if result.status is Status.failed:
            failure = ET.SubElement(case, "failure", type=_severity(result), message=result.message)
            failure.text = f"{text}\nremediation: {_remediation(result)}"
            tally[1] += 1
        elif result.status is Status.skipped:
            ET.SubElement(case, "skipped", message=result.message)
            tally[2] += 1
        elif result.status is Status.warning:
            ET.SubElement(case, "system-out").text = f"warning ({_severity(result)}): {text}"
        else:
            ET.SubElement(case, "system-out").text = result.message
    for group, suite in suites.items():
        tests, failures, skipped = tallies[group]
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
    root.set("tests", str(counts["total"]))
    root.set("failures", str(counts["fail"]))
    root.set("errors", "0")
    root.set("skipped", str(counts["skip"]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# -- JSON and SARIF ----------------------------------------------------------------------------


def render_json(report: VerifyReport) -> str:
    shared = to_report(report)
    data: dict[str, Any] = report.to_json()
    data["findings"] = [item.to_json() for item in shared.items]
    data["summary"] = {
        **shared.summary(),
        "account": report.account,
        "region": report.region,
        "endpoint": report.endpoint,
        "checks": report.counts(),
        "passed": not report.failed,
    }
    return json.dumps(data, indent=2, default=str) + "\n"


def render_sarif(report: VerifyReport) -> str:
    document = json.loads(render(to_report(report), "sarif"))
    for run in document.get("runs", []):
        run["properties"] = {
            "stack": report.stack,
            "account": report.account,
            "region": report.region,
            "endpoint": report.endpoint,
            "checks": report.counts(),
        }
    return json.dumps(document, indent=2) + "\n"


_RENDERERS = {
    "table": render_table,
    "markdown": render_markdown,
    "junit": render_junit,
    "json": render_json,
    "sarif": render_sarif,
}


def render_verify(report: VerifyReport, fmt: str) -> str:
    return _RENDERERS[fmt](report)
