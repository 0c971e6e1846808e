"""JUnit XML: one test suite per rule family, one test case per rule (passed when it found
nothing) and one per finding. Blocking findings are failures, waived ones skipped, advisory ones
pass with the finding in system-out (CI dashboards count them without failing the build).

Every suite carries `timestamp` (when the run began) and `time`: a rule's measured evaluation time
is shared among its test cases, and the run's whole time is on `testsuites`. A test case's
`classname` is `<family>.<rule id>`, without repeating the family when the id already starts with
it (`drift.missing`, not `drift.drift.missing`). The counts on every element are the ones the
report's summary gives.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from accelplane.report.document import Item, Report, RuleInfo


def _classname(rule: RuleInfo) -> str:
    return rule.id if rule.id.startswith(f"{rule.group}.") else f"{rule.group}.{rule.id}"


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def render_junit(report: Report) -> str:
    by_rule: dict[str, list[Item]] = defaultdict(list)
    for item in report.items:
        by_rule[item.rule].append(item)
    root = ET.Element("testsuites", name=f"{report.tool}: {report.subject}")
    timestamp = report.started.isoformat(timespec="seconds") if report.started else None
    groups: dict[str, ET.Element] = {}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # tests, failures, skipped
    times: dict[str, float] = defaultdict(float)
    for rule in report.rules:
        suite = groups.get(rule.group)
        if suite is None:
            suite = groups[rule.group] = ET.SubElement(root, "testsuite", name=rule.group)
        items = by_rule.get(rule.id, [])
        spent = report.rule_seconds.get(rule.id, 0.0)
        times[rule.group] += spent
        share = _seconds(spent / max(1, len(items)))
        if not items:
            ET.SubElement(suite, "testcase", classname=_classname(rule), name=f"{rule.id} {rule.name}", time=share)
            counts[rule.group][0] += 1
        for item in items:
            case = ET.SubElement(suite, "testcase", classname=_classname(rule), name=f"{rule.id} {item.name}",
                                 time=share)
            counts[rule.group][0] += 1
            text = f"{item.message}\nresource: {item.urn}\nremediation: {item.remediation}"
            if item.waived:
                ET.SubElement(case, "skipped", message=f"waived: {item.waiver_reason or ''}")
                counts[rule.group][2] += 1
            elif item.blocking:
                kind = f"{item.severity} {item.enforcement}"
                failure = ET.SubElement(case, "failure", type=kind, message=item.message)
                failure.text = text
                counts[rule.group][1] += 1
            else:
                ET.SubElement(case, "system-out").text = f"{item.enforcement} ({item.severity}): {text}"
    if report.failures:
        suite = ET.SubElement(root, "testsuite", name="waivers")
        for failure_text in report.failures:
            case = ET.SubElement(suite, "testcase", classname="waivers", name=failure_text[:120], time=_seconds(0))
            ET.SubElement(case, "failure", type="waiver", message=failure_text)
        counts["waivers"] = [len(report.failures), len(report.failures), 0]
        groups["waivers"] = suite
    total = [0, 0, 0]
    for name, suite in groups.items():
        tests, failures, skipped = counts[name]
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
        suite.set("time", _seconds(times[name]))
        if timestamp:
            suite.set("timestamp", timestamp)
        total = [total[0] + tests, total[1] + failures, total[2] + skipped]
    root.set("tests", str(total[0]))
    root.set("failures", str(total[1]))
    root.set("errors", "0")
    root.set("skipped", str(total[2]))
    root.set("time", _seconds(report.seconds if report.seconds is not None else sum(times.values())))
    if timestamp:
        root.set("timestamp", timestamp)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
