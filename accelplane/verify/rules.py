"""The policy rules of `accelplane check`, run on what is live.

The live view has the same shape as the offline graph (type tokens, logical names and URNs of the
declared resources, wire-format props), so the registry's rules run on it unchanged: drift that
breaks a least-privilege or hygiene rule is reported with the rule's id, and the stack's waivers
apply exactly as they do for `check`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from accelplane.config.model import Platform
from accelplane.report.findings import item
from accelplane.rules.engine import evaluate
from accelplane.rules.graph import Graph
from accelplane.rules.model import Enforcement, Finding
from accelplane.rules.registry import RULES
from accelplane.rules.view import Resource
from accelplane.rules.waivers import WaiverStatus, apply_waivers
from accelplane.verify.model import CheckId, CheckResult, Status


@dataclass
class RuleOutcome:
    results: list[CheckResult]
    findings: list[Finding]
    waivers: list[WaiverStatus]
    rules: int
    skipped: int


def rule_results(resources: list[Resource], platform: Platform, stack: str, today: date) -> RuleOutcome:
    graph = Graph(resources, stack=stack, environment=platform.environment.value, as_of=today)
    evaluation = evaluate(graph, RULES)
    findings, statuses = apply_waivers(evaluation.findings, platform.waivers, today)
    results: list[CheckResult] = []
    for finding in findings:
        if finding.waived:
            status = Status.skipped
        elif finding.enforcement is Enforcement.mandatory:
            status = Status.failed
        else:
            status = Status.warning
        message = finding.message + (f" (waived: {finding.waiver_reason})" if finding.waived else "")
        results.append(
            CheckResult(
                finding.rule.id,
                status,
                message,
                type=finding.type,
                name=finding.name,
                urn=finding.urn,
                finding=item(finding, strict=False).to_json(),
                waiver_reason=finding.waiver_reason,
            )
        )
    skipped = sum(evaluation.not_applicable.values())
    blocking = sum(1 for r in results if r.status is Status.failed)
    if not blocking:
        results.append(
            CheckResult(
                CheckId.rules,
                Status.passed,
                f"{len(evaluation.rules)} policy rules on {len(resources)} live resources: no blocking finding",
            )
        )
    return RuleOutcome(results, findings, statuses, len(evaluation.rules), skipped)
