"""Findings a change introduces and resolves: today's rules run on both revisions' graphs.

Both graphs are judged by the same rules (the ones of the code running `diff`), so a finding is
"introduced" because the infrastructure changed, not because the rule set did; a rule added in
the change itself reports what it finds on both sides as unchanged (`accelplane check` on the
working tree still shows it). Each side keeps its own waivers: a waiver added by the change turns
a finding into "resolved (waived)".

A finding's identity is (rule, resource URN, message), the same triple the SARIF fingerprint uses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from accelplane.bundle.sources import air_gap_resources
from accelplane.config.project import DEFAULT_PROJECT
from accelplane.declaration import Waiver
from accelplane.report.document import Item
from accelplane.report.findings import item
from accelplane.rules.bare_metal_groups import host_group_resources
from accelplane.rules.judgement import Judgement, Policy, judge
from accelplane.rules.rule import Finding
from accelplane.rules.sources import from_plan, stack_of


def judge_revision(
    document: Mapping[str, Any], platform: Mapping[str, Any], *, stack: str, environment: str | None,
    policy: Policy, origin: str,
) -> Judgement:
    """Every rule on one revision: its `preview --json` graph plus its declared bare-metal host groups
    and air-gap artifact sources (which no Pulumi graph holds), with that revision's waivers applied."""
    resources = from_plan(dict(document), origin)
    project = document.get("project") if isinstance(document.get("project"), str) else None
    owner = stack_of(resources, origin)
    project = project or (owner[1] if owner else DEFAULT_PROJECT)
    resources += host_group_resources(platform, stack=stack, project=project)
    resources += air_gap_resources(platform, stack=stack, project=project)  # AP-AIR-001, from the declaration
    return judge(resources, policy=policy, stack=stack, environment=environment)


def raw_waivers(platform: Mapping[str, Any]) -> list[Waiver]:
    """The waivers of an unvalidated declaration (another revision's): the well-formed ones."""
    out = []
    for raw in platform.get("waivers") or []:
        with contextlib.suppress(ValidationError, TypeError):
            out.append(Waiver.model_validate(raw))
    return out


def _key(finding: Finding) -> tuple[str, str, str]:
    return (finding.rule.id, finding.urn, finding.message)


def compare(base: list[Finding], head: list[Finding]) -> tuple[list[Item], list[Item]]:
    """(introduced, resolved) as report items, in the rules engine's order (blocking first)."""
    base_open = {_key(f) for f in base if not f.waived}
    head_open = {_key(f) for f in head if not f.waived}
    head_waived = {_key(f): f for f in head if f.waived}
    introduced = [item(f, strict=False) for f in head if not f.waived and _key(f) not in base_open]
    # A resolved finding blocks nothing any more, whatever its enforcement.
    resolved = [replace(item(head_waived.get(_key(f), f), strict=False), blocking=False) for f in base
                if not f.waived and _key(f) not in head_open]
    return introduced, resolved
