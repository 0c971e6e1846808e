"""The policy rules of `accelplane check`, run on what is live.

The live view has the same shape as the offline graph (type tokens, logical names and URNs of the
declared resources, wire-format props), so the registry's rules run on it unchanged through the
same `judge()` as `check`: drift that breaks a least-privilege or hygiene rule is reported with the
rule's id, and the stack's waivers and the `--policy-config` levels apply exactly as they do there.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import date

from accelplane.declaration import Platform
from accelplane.report.findings import item
from accelplane.rules.judgement import Policy, judge
from accelplane.rules.registry import RULES
from accelplane.rules.rule import Enforcement, Finding, Rule
from accelplane.rules.view import Resource
from accelplane.rules.waivers import WaiverStatus
from accelplane.verify.results import CheckId, CheckResult, Status


@dataclass
class RuleOutcome:
    results: list[CheckResult]
    findings: list[Finding]
    waivers: list[WaiverStatus]
    rules: int
    skipped: int


def rule_results(
    resources: list[Resource], platform: Platform, stack: str, today: date, levels: Mapping[str, str] | None = None,
    read_types: Collection[str] | None = None, declared_types: Collection[str] | None = None,
) -> RuleOutcome:
    """`read_types`: the types the live view holds as they are live (None: all); a rule reading a type the
    declaration has (`declared_types`; None: any) that is not among them is not judged, and says so. A type
    neither declared nor read is absent from both sides alike: the rule is judged."""
    def unread_of(rule: Rule) -> set[str]:
        if read_types is None:
            return set()
        relevant = rule.reads if declared_types is None else rule.reads & set(declared_types)
        return set(relevant) - set(read_types)

    unread = {rule: unread_of(rule) for rule in RULES}
    judgement = judge(resources, policy=Policy(levels=levels or {}, waivers=tuple(platform.waivers), as_of=today),
                      stack=stack, environment=platform.environment.value,
                      rules=[rule for rule in RULES if not unread[rule]])
    results: list[CheckResult] = [
        CheckResult(rule.id, Status.skipped, f"not judged on the live cloud: verify does not read "
                    f"{', '.join(sorted(types))} here (`check` judges the declaration)")
        for rule, types in unread.items() if types
    ]
    for finding in judgement.findings:
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
    for failure in judgement.failures:  # expired waivers fail verify as they fail check
        results.append(CheckResult(CheckId.rules, Status.failed, failure))
    skipped = sum(judgement.not_applicable.values())
    blocking = sum(1 for r in results if r.status is Status.failed)
    if not blocking:
        results.append(
            CheckResult(
                CheckId.rules,
                Status.passed,
                f"{len(judgement.rules)} policy rules on {len(resources)} live resources: no blocking finding",
            )
        )
    return RuleOutcome(results, judgement.findings, judgement.waivers, len(judgement.rules), skipped)
