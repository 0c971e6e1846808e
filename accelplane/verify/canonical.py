"""Make declared and live values comparable: references as symbols, documents in one form.

Declared inputs refer to other resources by the offline engine's mock ids and ARNs; live values by
AWS's real ones. Both are rewritten to the same *symbol* (`<logical name>`) through `Symbols`, a
table from identity strings (ids, ARNs, autonamed physical names, the account id) to the logical
name of the resource they identify. Substrings are rewritten too, so a bucket ARN inside a policy
`Resource` (`arn:aws:s3:::acme-datasets-1a2b/corpora/*`) or an OIDC issuer inside a trust policy's
condition key compares equal on both sides.

`canonical()` then puts values in one form: IAM documents parsed with single values as sorted lists
and statements sorted; `"true"`/`"false"` strings as booleans (pulumi-aws sends some booleans as
strings); whole floats as ints. `differences()` compares a declared value with a live one the way
drift is judged: maps are compared on the declared keys only (AWS adds keys and tags of its own),
except at "exact" paths (labels, taints) where an extra live key is drift too; lists are compared
as multisets; absent and empty are the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_WORD = re.compile(r"[A-Za-z0-9_.\-]+")


def symbol(name: str, part: str | None = None) -> str:
    return f"<{name}.{part}>" if part else f"<{name}>"


class Symbols:
    """Identity strings -> symbols, applied longest first and only on whole tokens.

    A token matches where a "word" (letters, digits, `_.-`) starts and ends at a word boundary, so
    `bucket-1` never matches inside `bucket-12`; tokens are indexed by their first word, so applying
    the table costs a dictionary lookup per word of the text.
    """

    def __init__(self) -> None:
        self._table: dict[str, str] = {}
        self._by_head: dict[str, list[str]] = {}
        self.live: dict[str, str] = {}  # symbol -> the live id/ARN/name first registered for it

    def add(self, token: Any, sym: str, *, live: bool = False) -> None:
        if not isinstance(token, str) or len(token) < 4 or token == sym:
            return
        head = _WORD.match(token)
        if head is None:
            return
        if token not in self._table:  # first wins: a bucket's name is also its settings' id
            self._table[token] = sym
            candidates = self._by_head.setdefault(head.group(0), [])
            candidates.append(token)
            candidates.sort(key=len, reverse=True)
        if live:
            self.live.setdefault(sym, token)

    def symbol_of(self, token: Any) -> str | None:
        return self._table.get(token) if isinstance(token, str) else None

    def live_value(self, declared_token: Any) -> str | None:
        """The live identity for what a declared id/ARN/name refers to, once matched."""
        sym = self.symbol_of(declared_token)
        return self.live.get(sym) if sym else None

    def apply(self, text: str) -> str:
        if not self._table:
            return text
        out: list[str] = []
        position = 0
        for word in _WORD.finditer(text):
            start = word.start()
            if start < position:
                continue
            for token in self._by_head.get(word.group(0), ()):
                end = start + len(token)
                if text.startswith(token, start) and (end == len(text) or not _WORD.match(text[end])):
                    out.append(text[position:start])
                    out.append(self._table[token])
                    position = end
                    break
        if not out:
            return text
        out.append(text[position:])
        return "".join(out)


def _as_document(text: str) -> Any:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        parsed = json.loads(stripped)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) and "Statement" in parsed else None


def canonical(value: Any, symbols: Symbols | None = None) -> Any:
    """`value` with references as symbols and documents, booleans and numbers in one form."""
    if isinstance(value, str):
        document = _as_document(value)
        if document is not None:
            return canonical_policy(document, symbols)
        if value in ("true", "false"):
            return value == "true"
        return symbols.apply(value) if symbols else value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        if "Statement" in value and isinstance(value.get("Statement"), (list, dict)):
            return canonical_policy(value, symbols)
        return {(symbols.apply(k) if symbols else k): canonical(v, symbols) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(item, symbols) for item in value]
    return value


_LISTY = ("Action", "NotAction", "Resource", "NotResource")


def canonical_policy(document: Mapping[str, Any], symbols: Symbols | None = None) -> dict[str, Any]:
    """An IAM/resource policy document in one form: equal documents compare equal."""

    def strings(value: Any) -> list[Any]:
        items = value if isinstance(value, list) else [value]
        return sorted(
            {canonical(item, symbols) for item in items if isinstance(item, (str, int, float, bool))}, key=str
        )

    statements = document.get("Statement", [])
    if isinstance(statements, Mapping):
        statements = [statements]
    out = []
    for statement in statements if isinstance(statements, list) else []:
        if not isinstance(statement, Mapping):
            continue
        canon: dict[str, Any] = {}
        for key, value in statement.items():
            if key in _LISTY:
                canon[key] = strings(value)
            elif key in ("Principal", "NotPrincipal"):
                canon[key] = (
                    {k: strings(v) for k, v in value.items()}
                    if isinstance(value, Mapping)
                    else canonical(value, symbols)
                )
            elif key == "Condition" and isinstance(value, Mapping):
                canon[key] = {
                    op: {(symbols.apply(k) if symbols else k): strings(v) for k, v in keys.items()}
                    if isinstance(keys, Mapping)
                    else canonical(keys, symbols)
                    for op, keys in value.items()
                }
            else:
                canon[key] = canonical(value, symbols)
        out.append(canon)
    out.sort(key=lambda s: json.dumps(s, sort_keys=True, default=str))
    result: dict[str, Any] = {"Statement": out}
    if "Version" in document:
        result["Version"] = document["Version"]
    return result


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _is_document(value: Any) -> bool:
    return isinstance(value, Mapping) and "Statement" in value


def _merged_shape(items: Iterable[Any]) -> Any:
    """The union of the shapes of `items` (list elements), recursively."""
    shape: Any = None
    for item in items:
        if isinstance(item, Mapping) and not _is_document(item):
            shape = dict(shape) if isinstance(shape, dict) else {}
            for key, value in item.items():
                shape[key] = _merged_shape([shape[key], value]) if key in shape else value
        elif isinstance(item, list):
            shape = [_merged_shape([*(shape if isinstance(shape, list) else []), *item])] if item else shape
        elif shape is None:
            shape = item
    return shape


def project(live: Any, declared: Any, exact: bool = False) -> Any:
    """`live` reduced to the shape of `declared`: map keys the declaration does not set are dropped.

    Policy documents are never reduced: an extra statement key (a new `Condition`, a `NotResource`)
    is drift.
    """
    if exact or _is_document(declared):
        return live
    if isinstance(declared, Mapping) and isinstance(live, Mapping):
        return {k: project(live[k], declared[k]) for k in declared if k in live}
    if isinstance(declared, list) and isinstance(live, list):
        shape = _merged_shape(declared)
        if not isinstance(shape, Mapping):
            return list(live)
        return [project(item, shape) for item in live]
    return live


@dataclass(frozen=True)
class Difference:
    path: str
    expected: Any
    actual: Any


def differences(
    declared: Any, live: Any, *, path: str = "", exact_paths: Iterable[str] = (), ignore_paths: Iterable[str] = ()
) -> list[Difference]:
    """Where a canonical live value departs from a canonical declared one."""
    exact, ignore = set(exact_paths), set(ignore_paths)
    out: list[Difference] = []
    _diff(declared, live, path, exact, ignore, out)
    return out


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _diff(declared: Any, live: Any, path: str, exact: set[str], ignore: set[str], out: list[Difference]) -> None:
    if path in ignore or declared is None:  # None in declared inputs: not set, nothing to compare
        return
    if _empty(declared) and _empty(live):
        return
    if _is_document(declared):
        if declared != live:
            out.append(Difference(path, declared, live))
        return
    if isinstance(declared, Mapping) and isinstance(live, Mapping):
        keys = set(declared) | (set(live) if path in exact else set())
        for key in sorted(keys):
            sub = _join(path, key)
            if sub in ignore:
                continue
            if key not in declared or declared[key] is None:
                if path in exact and not _empty(live.get(key)):
                    out.append(Difference(sub, None, live[key]))
                continue
            _diff(declared[key], live.get(key), sub, exact, ignore, out)
        return
    if isinstance(declared, list) and isinstance(live, list):
        projected = project(live, declared, exact=path in exact)
        if sorted(map(_sort_key, declared)) != sorted(map(_sort_key, projected)):
            out.append(Difference(path, declared, projected))
        return
    if declared != live:
        out.append(Difference(path, declared, project(live, declared, exact=path in exact)))
