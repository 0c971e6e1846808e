"""Build a `Report` from rule findings (what `accelplane check` renders)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from accelplane.report.model import Item, Report, RuleInfo
from accelplane.rules.model import Enforcement, Finding, Rule


def rule_info(rule: Rule, level: str | None = None) -> RuleInfo:
    return RuleInfo(id=rule.id, name=rule.name, description=rule.description, severity=rule.severity.value,
                    enforcement=level or rule.enforcement.value, remediation=rule.remediation,
                    group=rule.family.value, references=rule.references)


def item(finding: Finding, strict: bool) -> Item:
    blocking = not finding.waived and (finding.enforcement is Enforcement.mandatory or strict)
    return Item(rule=finding.rule.id, severity=finding.severity.value, enforcement=finding.enforcement.value,
                urn=finding.urn, type=finding.type, name=finding.name, message=finding.message,
                remediation=finding.rule.remediation, waived=finding.waived, blocking=blocking,
                waiver_reason=finding.waiver_reason)


def build_report(
    *, subject: str, findings: Iterable[Finding], rules: Iterable[Rule], levels: Mapping[str, str], resources: int,
    strict: bool, artifact: str | None, tool: str = "accelplane check",
) -> Report:
    return Report(
        tool=tool, subject=subject, items=[item(f, strict) for f in findings],
        rules=[rule_info(r, levels.get(r.id)) for r in rules if levels.get(r.id) != "disabled"],
        resources=resources, strict=strict, artifact=artifact,
    )
