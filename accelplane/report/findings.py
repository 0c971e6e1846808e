"""Build a `Report` from a judgement (what `accelplane check` renders)."""

from __future__ import annotations

from accelplane.report.document import Item, Report, RuleInfo
from accelplane.rules.judgement import Judgement
from accelplane.rules.rule import Enforcement, Finding, Rule


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
    judgement: Judgement, *, subject: str, strict: bool, artifact: str | None, tool: str = "accelplane check",
) -> Report:
    return Report(
        tool=tool, subject=subject, items=[item(f, strict) for f in judgement.findings],
        rules=[rule_info(r, judgement.levels.get(r.id)) for r in judgement.rules],
        resources=judgement.resources, strict=strict, artifact=artifact,
        failures=judgement.failures, notes=judgement.notes, waivers=[s.to_json() for s in judgement.waivers],
        rule_seconds=dict(judgement.seconds),
    )
