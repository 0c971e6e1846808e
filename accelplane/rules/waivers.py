"""Waivers from the stack declaration: accepted findings, each with a reason, an owner and an expiry.

A waiver matches a finding by rule id and resource (the resource's name or URN). A waiver is in
force before its `expires` date; on and after that date it is expired: the finding it covered is
reported unwaived again and the check fails until the waiver is renewed or removed. A waiver that
matches nothing is reported as unused (it does not fail the check: the problem may be fixed).
Waivers are read by attribute (`rule`, `resource`, `reason`, `owner`, `expires`), so this module
needs nothing from the configuration package.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from accelplane.rules.rule import Finding


@dataclass(frozen=True)
class WaiverStatus:
    index: int  # position in the declaration's `waivers` list
    rule: str
    resource: str
    reason: str
    owner: str
    expires: date
    state: str  # active | expired | unused
    matched: int

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "resource": self.resource, "reason": self.reason, "owner": self.owner,
                "expires": self.expires.isoformat(), "state": self.state, "matched": self.matched}


def _matches(waiver: Any, finding: Finding) -> bool:
    rule = finding.rule
    return (waiver.rule == rule.id or waiver.rule in rule.aliases) and waiver.resource in (finding.name, finding.urn)


def apply_waivers(
    findings: Sequence[Finding], waivers: Iterable[Any], today: date
) -> tuple[list[Finding], list[WaiverStatus]]:
    waivers = list(waivers)
    out: list[Finding] = []
    counts = [0] * len(waivers)
    for finding in findings:
        waived_by = None
        for index, waiver in enumerate(waivers):
            if _matches(waiver, finding):
                counts[index] += 1
                if today < waiver.expires and waived_by is None:
                    waived_by = waiver
        out.append(replace(finding, waived=True, waiver_reason=waived_by.reason) if waived_by else finding)
    statuses = []
    for index, waiver in enumerate(waivers):
        if today >= waiver.expires:
            state = "expired"
        elif counts[index] == 0:
            state = "unused"
        else:
            state = "active"
        statuses.append(WaiverStatus(index=index, rule=waiver.rule, resource=waiver.resource, reason=waiver.reason,
                                     owner=waiver.owner, expires=waiver.expires, state=state, matched=counts[index]))
    return out, statuses
