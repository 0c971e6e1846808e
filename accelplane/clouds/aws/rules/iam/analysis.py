"""IAM analysis backed by cloudsplaining and the policy_sentry IAM action database.

Measured against parliament and hand code (issue 4; figures in the check report of that issue):
cloudsplaining's Rhino Security Labs escalation list (60 paths, maintained) and policy_sentry's
database (20k actions) do what hand code cannot (wildcard expansion, unknown actions) at 0.04 ms a
document; parliament misses `"Action": "*"`, costs ~1 ms a document and brings unmaintained
dependencies. cloudsplaining is slow only when expanding `*` (0.7 s), so full wildcards are
answered here without it. Imports are lazy: rules that do not need the database do not pay 0.4 s.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from accelplane.clouds.aws.rules.iam.document import Statement, is_full_wildcard, matches, service_of, statements


@cache
def _catalog() -> tuple[frozenset[str], frozenset[str]]:
    """(lower-case action names, lower-case service prefixes) of the policy_sentry database."""
    logging.getLogger("policy_sentry").setLevel(logging.ERROR)
    # Start-up time: policy_sentry's action database loads only when this runs.
    from policy_sentry.querying.all import get_all_actions

    actions = frozenset(a.lower() for a in get_all_actions())
    return actions, frozenset(service_of(a) for a in actions)


def unknown_actions(document: Mapping[str, Any] | None) -> list[str]:
    """Action names (or patterns) that name no IAM action: typos that silently grant nothing."""
    actions, services = _catalog()
    unknown: list[str] = []
    for statement in statements(document):
        for action in (*statement.actions, *statement.not_actions):
            if is_full_wildcard(action):
                continue
            lowered = action.lower()
            if ":" not in lowered or service_of(lowered) not in services:
                unknown.append(action)
            elif "*" in lowered or "?" in lowered:
                if not _pattern_names_an_action(lowered):
                    unknown.append(action)
            elif lowered not in actions:
                unknown.append(action)
    return unknown


@lru_cache(maxsize=4096)
def _pattern_names_an_action(pattern: str) -> bool:
    actions, _ = _catalog()
    prefix = service_of(pattern) + ":"
    return any(matches(pattern, action) for action in actions if action.startswith(prefix))


def escalation_paths(document: Mapping[str, Any] | None) -> list[tuple[str, tuple[str, ...]]]:
    """Privilege-escalation paths (Rhino Security Labs, via cloudsplaining) the document allows on
    unrestricted resources: (path name, actions)."""
    if document is None:
        return []
    for statement in statements(document):
        if _unrestricted_full_wildcard(statement):
            return [("AnyAction", ("*",))]
    return list(_escalations(json.dumps(document, sort_keys=True, default=str)))


def _unrestricted_full_wildcard(statement: Statement) -> bool:
    return (
        statement.allow
        and (any(is_full_wildcard(a) for a in statement.actions) or bool(statement.not_actions))
        and statement.any_resource
        and not statement.conditions
    )


@lru_cache(maxsize=4096)
def _escalations(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    logging.getLogger("cloudsplaining").setLevel(logging.ERROR)
    # Start-up time: cloudsplaining loads only when a policy document is judged.
    from cloudsplaining.scan.policy_document import PolicyDocument

    found = PolicyDocument(json.loads(text)).allows_privilege_escalation
    return tuple((str(item["type"]), tuple(item["actions"])) for item in found)


def merged(documents: list[Mapping[str, Any] | None]) -> dict[str, Any]:
    """One document holding every statement of `documents` (a role's effective identity policy)."""
    merged_statements: list[Any] = []
    for document in documents:
        if document is None:
            continue
        raw = document.get("Statement", [])
        merged_statements.extend(raw if isinstance(raw, list) else [raw])
    return {"Version": "2012-10-17", "Statement": merged_statements}
