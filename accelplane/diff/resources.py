"""Match two preview graphs by URN and say, per resource, which inputs change from what to what.

The URN is Pulumi's identity of a resource (stack, project, parent type chain, type, name): the
same URN in both graphs is the same resource, a URN in one graph only is a create or a delete, as
`pulumi preview` would plan it. Whether a change is an update in place or a replacement (and then
whether the old resource goes first) is decided as the provider decides it (`replacement`): the
inputs its schema marks force-new and the ones the component declares (`replaceOnChanges`). A
created resource carries its key inputs: the ones set at creation for good (those that force a
replacement), else its top-level values.

Paths: object keys joined with `.` (`["key"]` when the key is not an identifier, e.g. a label),
list elements as `[i]` (a list of plain values that grows or shrinks is shown whole). Inputs
holding a JSON document as a string (IAM policies, key policies) are compared inside the
document and the path marks the boundary: `policy<json>.Statement[0]`.

Secrets: values the engine marks secret are already `[secret]` in both graphs. Values under keys
that carry credentials (passwords, tokens, private keys, Kubernetes `Secret` data) are compared
but shown only as `[secret]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from accelplane.diff.plan_diff import ABSENT, Component, InputChange, ResourceDiff
from accelplane.diff.replacement import force_new_rules, meaning, recreated_nodes, replacement
from accelplane.rules.cloud_rules import review_inputs as cloud_review_inputs

_STACK_TYPE = "pulumi:pulumi:Stack"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
JSON_MARK = "<json>"
# Input keys (compared case-insensitively) whose values are credentials.
SECRET_KEYS = frozenset({
    "password", "masterpassword", "secretstring", "secretbinary", "privatekey", "secretkey",
    "secretaccesskey", "token", "authtoken", "apikey", "clientsecret", "kubeconfig",
})
# Whole input subtrees that are secret by type (Kubernetes Secret data).
_SECRET_SUBTREES = {"kubernetes:core/v1:Secret": frozenset({"data", "stringData"})}


def diff_graphs(base: Mapping[str, Any], head: Mapping[str, Any]) -> list[ResourceDiff]:
    """Creates, updates and deletes from the base graph document to the head one (`preview --json`)."""
    base_by_urn = _by_urn(base)
    head_by_urn = _by_urn(head)
    out: list[ResourceDiff] = []
    for urn, resource in head_by_urn.items():
        previous = base_by_urn.get(urn)
        if previous is None:
            out.append(_resource_diff("create", resource))
            continue
        changes = resource_changes(previous, resource)
        if not changes:
            continue
        replaced = replacement(previous, resource, changes)
        if replaced is None:
            out.append(replace(_resource_diff("update", resource, changes),
                               meaning=recreated_nodes(str(resource.get("type")), changes)))
        else:
            out.append(replace(_resource_diff(replaced.op, resource, changes), forced_by=replaced.paths,
                               meaning=meaning(str(resource.get("type")), replaced)))
    out.extend(_resource_diff("delete", resource) for urn, resource in base_by_urn.items() if urn not in head_by_urn)
    return out


MAX_KEY_INPUTS = 10
# What a reviewer of a new Kubernetes resource asks first, beyond what can never change (the force-new
# inputs); each cloud names its own types' (CloudRules.review_inputs).
_KUBERNETES_REVIEW_INPUTS = {
    "kubernetes:helm.sh/v3:Release": ("chart", "version"),
    "kubernetes:apps/v1:Deployment": ("spec.replicas", "spec.template.spec.containers.image"),
    "kubernetes:apps/v1:DaemonSet": ("spec.template.spec.containers.image",),
}


def review_inputs(type_token: str) -> tuple[str, ...]:
    return _KUBERNETES_REVIEW_INPUTS.get(type_token) or cloud_review_inputs().get(type_token, ())


def key_inputs(resource: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """What a created resource is: its inputs that cannot change later without a replacement (name,
    network, service account...) and what a reviewer asks first of its type (machine type, topology,
    versions), else its top-level plain values; at most `MAX_KEY_INPUTS`."""
    inputs = resource.get("inputs") or {}
    found: dict[str, Any] = {}
    type_token = str(resource.get("type"))
    wanted = [*review_inputs(type_token), *(rule.path for rule in force_new_rules(type_token))]
    for wanted_path in wanted:
        for path, value in _values_at(inputs, wanted_path.split(".")):
            plain_list = isinstance(value, list) and all(not isinstance(v, (Mapping, list)) for v in value)
            if not isinstance(value, (Mapping, list)) or plain_list:  # a block shows through its leaves
                found.setdefault(path, value)
    if not found:
        found = {key: value for key, value in sorted(inputs.items()) if isinstance(value, (str, int, float, bool))}
    secret = {key for key in found if _is_secret(list[str | int](key.replace("[", ".").split(".")), frozenset())}
    return tuple((key, "[secret]" if key in secret else value) for key, value in list(found.items())[:MAX_KEY_INPUTS])


def _values_at(value: Any, parts: list[str], prefix: str = "") -> Iterator[tuple[str, Any]]:
    if not parts:
        yield prefix, value
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _values_at(item, parts, f"{prefix}[{index}]")
        return
    if isinstance(value, Mapping) and parts[0] in value:
        head = f"{prefix}.{parts[0]}" if prefix else parts[0]
        yield from _values_at(value[parts[0]], parts[1:], head)


def resource_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[InputChange, ...]:
    """Input changes of one resource, plus a change of its `protect` flag."""
    subtrees = _SECRET_SUBTREES.get(str(new.get("type")), frozenset())
    changes = list(_diff(old.get("inputs") or {}, new.get("inputs") or {}, [], subtrees))
    if bool(old.get("protect")) != bool(new.get("protect")):
        changes.append(InputChange("(protect)", bool(old.get("protect")), bool(new.get("protect"))))
    return tuple(changes)


def component_of(parent: str | None) -> Component:
    if not parent:
        return Component(urn=None, type=_STACK_TYPE, name="")
    type_token, name = urn_type_and_name(parent)
    return Component(urn=parent, type=type_token, name=name)


def urn_type_and_name(urn: str) -> tuple[str, str]:
    """`urn:pulumi:<stack>::<project>::<parent types $ ...><type>::<name>` -> (type, name)."""
    parts = urn.split("::", 3)
    if len(parts) < 4:
        return urn, urn
    return parts[2].rsplit("$", 1)[-1], parts[3]


def format_path(parts: Sequence[str | int]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == JSON_MARK:
            out += JSON_MARK
        elif _IDENTIFIER.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


def _by_urn(document: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for resource in document.get("resources") or []:
        if not isinstance(resource, Mapping) or not isinstance(resource.get("urn"), str):
            continue
        if resource.get("type") != _STACK_TYPE:
            out[resource["urn"]] = resource
    return out


def _resource_diff(op: str, resource: Mapping[str, Any], changes: tuple[InputChange, ...] = ()) -> ResourceDiff:
    urn = str(resource["urn"])
    type_token, name = urn_type_and_name(urn)
    return ResourceDiff(op=op, urn=urn, type=str(resource.get("type") or type_token),
                        name=str(resource.get("name") or name), component=component_of(resource.get("parent")),
                        changes=changes, key_inputs=key_inputs(resource) if op == "create" else ())


def _diff(old: Any, new: Any, path: list[str | int], secret_subtrees: frozenset[str]) -> Iterator[InputChange]:
    if old == new:
        return
    if path and _is_secret(path, secret_subtrees):
        yield InputChange(format_path(path), old, new, secret=True)
        return
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new), key=str):
            yield from _diff(old.get(key, ABSENT), new.get(key, ABSENT), [*path, str(key)], secret_subtrees)
        return
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new) and not any(isinstance(v, (Mapping, list)) for v in (*old, *new)):
            # A value inserted into a list of scalars would shift every later index: show both lists.
            yield InputChange(format_path(path), old, new)
            return
        for index in range(max(len(old), len(new))):
            yield from _diff(old[index] if index < len(old) else ABSENT, new[index] if index < len(new) else ABSENT,
                             [*path, index], secret_subtrees)
        return
    old_doc, new_doc = _json_document(old), _json_document(new)
    if old_doc is not None and new_doc is not None and type(old_doc) is type(new_doc):
        yield from _diff(old_doc, new_doc, [*path, JSON_MARK], secret_subtrees)
        return
    yield InputChange(format_path(path), old, new)


def _is_secret(path: list[str | int], secret_subtrees: frozenset[str]) -> bool:
    if isinstance(path[0], str) and path[0] in secret_subtrees:
        return True
    return any(isinstance(part, str) and part.lower() in SECRET_KEYS for part in path)


def _json_document(value: Any) -> dict[str, Any] | list[Any] | None:
    if not isinstance(value, str) or value[:1] not in ("{", "["):
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    return parsed if isinstance(parsed, (dict, list)) else None
