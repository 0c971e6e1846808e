"""Whether a changed resource is updated in place, replaced, or deleted before its replacement exists.

`pulumi preview` asks each resource's provider; offline there is no provider, so the answer comes
from what decides it there:
- the inputs the component declares (`replace_on_changes`, recorded in the graph as `replaceOnChanges`);
- the inputs the provider cannot change in place, read from the providers' own source: each cloud's
  table in its folder (`accelplane/clouds/<cloud>/force_new.json`, named by its `CloudRules`:
  Terraform's `ForceNew`/`RequiresReplace` for the bridged providers), and pulumi-kubernetes' own
  table beside this module (`force_new.json`). A `ForceNew` block (`"when": "added or removed"`)
  replaces only when the whole block comes or goes, as the plugin SDK does: a change inside it is
  judged by its own arguments.
Delete before replace, as the engine decides it: the `delete_before_replace` option; a Kubernetes
object whose name is fixed and unchanged (pulumi-kubernetes' Diff: two objects cannot share a name);
a bridged resource whose own name (`name`, `nodeGroupName`, `bucket`...) is set and unchanged (the
Terraform bridge's `nameRequiresDeleteBeforeReplace`: the new one could not take the same name).
A replaced node pool is spelled out: its nodes go, and with them whatever runs on them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from accelplane.diff.plan_diff import ABSENT, InputChange
from accelplane.rules.cloud_rules import force_new_tables, node_pool_shapes, node_pool_types

# pulumi-kubernetes' table; each cloud's provider table is in the cloud's folder.
KUBERNETES_TABLE = Path(__file__).with_name("force_new.json")
# A resource's own name in the bridged providers' inputs (what Pulumi would otherwise auto-name).
NAME_INPUTS = ("name", "nodeGroupName", "bucket", "accountId", "secretId")
_INDEX = re.compile(r"\[\d+\]")
_QUOTED_KEY = re.compile(r'\["((?:[^"\\]|\\.)*)"\]')


@dataclass(frozen=True)
class Replacement:
    """Why a resource is replaced (the input paths that force it) and how."""

    paths: tuple[str, ...]
    delete_first: bool

    @property
    def op(self) -> str:
        return "delete-before-replace" if self.delete_first else "replace"


@dataclass(frozen=True)
class _Rule:
    path: str
    whole_block: bool  # replaces only when the block is added or removed


@cache
def _table() -> dict[str, Any]:
    return table()


def table() -> dict[str, Any]:
    """Every installed cloud's provider table (`types`: type token -> paths and source) and the
    Kubernetes one (`kubernetes`), read afresh."""
    types: dict[str, Any] = {}
    for path in force_new_tables():
        types.update(json.loads(path.read_text())["types"])
    return {"types": types, "kubernetes": json.loads(KUBERNETES_TABLE.read_text())["kubernetes"]}


def force_new_rules(type_token: str) -> tuple[_Rule, ...]:
    """What replaces a resource of this type, as its provider decides."""
    table = _table()
    entries = list(table["types"].get(type_token, {}).get("paths", []))
    kubernetes = table["kubernetes"]
    kind = kubernetes["kinds"].get(type_token, {})
    entries += kind.get("paths", [])
    if type_token.startswith("kubernetes:") and not kind.get("no_metadata"):
        entries += kubernetes["every_kind"]["paths"]
    return tuple(_Rule(e["path"], e.get("when") == "added or removed") for e in entries)


def known_types() -> frozenset[str]:
    table = _table()
    return frozenset(table["types"]) | frozenset(table["kubernetes"]["kinds"])


def normalized(path: str) -> str:
    """A diff path as the tables write it: `nodeConfig.guestAccelerator[0].count` ->
    `nodeConfig.guestAccelerator.count`, `labels["a.b"]` -> `labels.a.b`, `policy<json>.X` -> `policy.X`."""
    path = _QUOTED_KEY.sub(lambda m: "." + m[1], path).replace("<json>", "")
    return _INDEX.sub("", path).lstrip(".")


def _hits(rule: _Rule, change: InputChange) -> bool:
    path = normalized(change.path)
    if rule.whole_block:
        return path == rule.path and change.op in ("add", "remove")
    return path == rule.path or path.startswith(rule.path + ".")


def _declared_hits(pattern: str, change: InputChange) -> bool:
    if pattern == "*":
        return True
    path = normalized(change.path)
    return path == normalized(pattern) or path.startswith(normalized(pattern) + ".")


def replacement(
    old: Mapping[str, Any], new: Mapping[str, Any], changes: Sequence[InputChange]
) -> Replacement | None:
    """The replacement these input changes force on the resource (`preview --json` records), or None."""
    type_token = str(new.get("type"))
    declared = [str(p) for p in new.get("replaceOnChanges") or () if isinstance(p, str)]
    rules = force_new_rules(type_token)
    forcing = [c.path for c in changes
               if any(_declared_hits(p, c) for p in declared) or any(_hits(r, c) for r in rules)]
    if not forcing:
        return None
    return Replacement(tuple(forcing), _deletes_first(type_token, old, new))


def _deletes_first(type_token: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    if new.get("deleteBeforeReplace"):
        return True
    old_inputs, new_inputs = old.get("inputs") or {}, new.get("inputs") or {}
    if type_token.startswith("kubernetes:") and type_token != "kubernetes:helm.sh/v3:Release":
        old_meta, new_meta = old_inputs.get("metadata") or {}, new_inputs.get("metadata") or {}
        return bool(new_meta.get("name")) and all(old_meta.get(k) == new_meta.get(k) for k in ("name", "namespace"))
    forced = {rule.path for rule in force_new_rules(type_token)}
    for field in NAME_INPUTS:
        name = new_inputs.get(field, ABSENT)
        if field in forced and isinstance(name, str) and name and old_inputs.get(field) == name:
            return True
    return False


def meaning(type_token: str, replaced: Replacement) -> str | None:
    """What a reviewer approves with this replacement, where it is more than a new id."""
    if type_token not in node_pool_types():
        return None
    text = ("every node of the pool is drained and deleted: pods on it are evicted, jobs running on it stop "
            "(a TPU slice is destroyed whole) and resume only from their last checkpoint")
    if replaced.delete_first:
        text += "; the old pool is deleted before the new one exists, so the pool's capacity is zero meanwhile"
    return text


def recreated_nodes(type_token: str, changes: Sequence[InputChange]) -> str | None:
    """What an in-place update of a node pool costs when its provider recreates every node for it (the
    inputs each cloud's NodePoolShape.recreating_inputs names); None for a harmless update."""
    shape = node_pool_shapes().get(type_token)
    if shape is None:
        return None
    inputs = shape.recreating_inputs
    rolling = [c.path for c in changes
               if any(normalized(c.path) == p or normalized(c.path).startswith(p + ".") for p in inputs)]
    if not rolling:
        return None
    return (f"updated in place, but every node is recreated because {', '.join(rolling)} changed: a rolling "
            "replacement drains the pool node by node (pods are evicted, jobs on a drained node stop and resume from "
            "their last checkpoint), its serving capacity is short by the surge while it rolls, and the quota "
            "must hold the surge nodes beside the old ones")


def unknown_types(types: Iterable[str]) -> list[str]:
    """Custom resource types the table says nothing of (components and providers are not custom)."""
    known = known_types()
    return sorted({t for t in types if t not in known and not t.startswith("kubernetes:")})
