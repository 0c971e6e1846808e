"""Enforcement levels per rule, from a policy config in the CrossGuard format.

The same file configures both engines: `pulumi preview --policy-pack policies
--policy-pack-config FILE` and `accelplane check --policy-config FILE`. Semantics are Pulumi's: a
rule's level is its own default, overridden by `all`, overridden by the rule's own entry. Values
are a level string or `{"enforcementLevel": LEVEL}`; levels: advisory, mandatory, disabled
(remediate counts as mandatory: these rules do not remediate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from accelplane.errors import InputError, Problem
from accelplane.rules.rule import Rule

ALL = "all"
LEVELS = ("advisory", "mandatory", "remediate", "disabled")


def resolve_levels(
    rules: Iterable[Rule], config: Mapping[str, Any] | None, source: str = "<policy config>"
) -> dict[str, str]:
    """Rule id -> advisory | mandatory | disabled."""
    rules = list(rules)
    config = config or {}
    problems = []
    known = {key: rule.id for rule in rules for key in (rule.id, *rule.aliases)}  # an old id names its rule
    parsed: dict[str, str] = {}
    for key, value in config.items():
        level = value.get("enforcementLevel") if isinstance(value, Mapping) else value
        if key != ALL and key not in known:
            problems.append(Problem(file=source, line=None, field=key, message="no rule with this id"))
        elif level is None and isinstance(value, Mapping):
            continue  # properties only, no level
        elif level not in LEVELS:
            problems.append(Problem(file=source, line=None, field=key,
                                    message=f"enforcement level must be one of {', '.join(LEVELS)} (got {level!r})"))
        else:
            parsed[known.get(key, key)] = "mandatory" if level == "remediate" else str(level)
    if problems:
        raise InputError(problems)
    return {rule.id: parsed.get(rule.id, parsed.get(ALL, rule.enforcement.value)) for rule in rules}
