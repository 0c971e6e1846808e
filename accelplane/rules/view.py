"""The resource view rules read: type token, name, URN and plain props, nothing engine-specific.

Every engine (offline graph, `pulumi stack export`, `pulumi preview --json`, CrossGuard) is turned
into `Resource`s by `accelplane.rules.sources` or the CrossGuard adapter. Props are plain JSON-like
data in the wire format (camelCase keys, as the Pulumi engine sends them); numbers that are whole
are ints (CrossGuard sends floats); values not known until the resource exists (a preview) are the
`UNKNOWN` sentinel.

`UNKNOWN` raises `UnknownValue` on any use (truth test, comparison, iteration, formatting), so a rule
never silently treats an unknown as absent; the engine catches `UnknownValue` and records the rule
as not applicable to that resource (what CrossGuard does on preview). The accessors below raise it
explicitly, so `isinstance` checks in rules cannot skip past an unknown either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NoReturn

# Pulumi's unknown-value sentinels (pulumi/sdk/go/common/resource/plugin/rpc.go; the same strings
# appear in `pulumi preview --json` and in CrossGuard props).
UNKNOWN_SENTINELS = frozenset(
    {
        "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",  # bool
        "3eeb2bf0-c639-47a8-9e75-3b44932eb421",  # number
        "04da6b54-80e4-46f7-96ec-b56ff0331ba9",  # string
        "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",  # array
        "030794c1-ac77-496b-92df-f27374a8bd58",  # asset
        "e48ece36-62e2-4504-bad9-02848725956a",  # archive
        "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",  # object
    }
)
# What a secret value becomes in the offline graph and in a state file exported without
# `--show-secrets`: the value itself is not available to judge.
SECRET_PLACEHOLDER = "[secret]"


class UnknownValue(Exception):  # noqa: N818 - reads as the condition it signals
    """A rule touched a value that is not known yet (a preview): the rule does not apply."""


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<unknown>"

    def _raise(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        raise UnknownValue("value is not known until the resource is created")

    __bool__ = __iter__ = __len__ = __getitem__ = __contains__ = _raise
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _raise  # type: ignore[assignment]
    __str__ = __format__ = __int__ = __float__ = _raise  # type: ignore[assignment]
    __hash__ = object.__hash__


UNKNOWN: Any = _Unknown()


def is_unknown(value: Any) -> bool:
    return value is UNKNOWN


@dataclass(frozen=True, slots=True)
class Resource:
    """One resource as the rules see it."""

    urn: str
    type: str
    name: str
    props: Mapping[str, Any]
    parent: str | None = None
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    protect: bool = False
    id: str | None = None
    # Known outputs (state files, CrossGuard stack policies): used only to follow references.
    outputs: Mapping[str, Any] = field(default_factory=dict)

    def get(self, *path: str | int, default: Any = None) -> Any:
        return get(self.props, *path, default=default)

    def tags(self) -> Mapping[str, Any]:
        tags = self.get("tags")
        return tags if isinstance(tags, Mapping) else {}


def known(value: Any) -> Any:
    """`value`, or raise `UnknownValue` when it is the unknown sentinel."""
    if value is UNKNOWN:
        raise UnknownValue("value is not known until the resource is created")
    return value


def get(value: Any, *path: str | int, default: Any = None) -> Any:
    """Walk `path` into nested mappings/lists; `default` when a step is missing or of the wrong kind.

    Raises `UnknownValue` when any step, or the value found, is unknown.
    """
    current = known(value)
    for part in path:
        if isinstance(part, int):
            if not isinstance(current, Sequence) or isinstance(current, str) or part >= len(current):
                return default
            current = known(current[part])
        else:
            if not isinstance(current, Mapping) or part not in current:
                return default
            current = known(current[part])
    return default if current is None else current


def as_list(value: Any) -> list[Any]:
    """A value that may be one item or a list of items (IAM `Action`, `Resource`), as a list."""
    value = known(value)
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [known(item) for item in value]
    return [value]


def as_str(value: Any, default: str = "") -> str:
    value = known(value)
    return value if isinstance(value, str) else default


def as_bool(value: Any) -> bool | None:
    """pulumi-aws sends some booleans as strings ("true"): accept both; `None` when absent."""
    value = known(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def as_int(value: Any) -> int | None:
    value = known(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def mapping(value: Any) -> Mapping[str, Any]:
    value = known(value)
    return value if isinstance(value, Mapping) else {}


@lru_cache(maxsize=4096)
def _parse_json_document(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def json_document(value: Any) -> Mapping[str, Any] | None:
    """A policy document given as a JSON string (or already a mapping); `None` when not valid JSON."""
    value = known(value)
    if isinstance(value, Mapping):
        return value
    if not isinstance(value, str):
        return None
    parsed = _parse_json_document(value)
    return parsed if isinstance(parsed, dict) else None
