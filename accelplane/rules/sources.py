"""Turn what the engines write into `Resource`s: a `pulumi stack export` file and a `pulumi preview
--json` file (or `accelplane preview --json`); the offline graph converts itself
(`accelplane.engine.offline.from_offline_graph`).

File problems are `InputError`s naming the file and the field path (exit 2, no traceback).
Unknown-value sentinels become `UNKNOWN`; secret values become `SECRET_PLACEHOLDER` unless the
export carries their plaintext (`pulumi stack export --show-secrets`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accelplane.errors import InputError
from accelplane.input_files import DOCUMENT_LIMIT, read_json
from accelplane.rules.view import SECRET_PLACEHOLDER, UNKNOWN, UNKNOWN_SENTINELS, Resource

_SIG_KEY = "4dabf18193072939515e22adb298388d"
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
# Resources that are engine bookkeeping, not infrastructure.
_SKIPPED_TYPES = ("pulumi:pulumi:Stack",)
_SKIPPED_PREFIXES = ("pulumi:providers:",)
# Plan steps whose new state is not what will exist after the operation.
_GONE_OPS = frozenset({"delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace"})


def plain(value: Any) -> Any:
    """Engine JSON to rule props: sentinels to `UNKNOWN`, secrets unwrapped or masked, whole floats to int."""
    if isinstance(value, str):
        return UNKNOWN if value in UNKNOWN_SENTINELS else value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        if value.get(_SIG_KEY) == _SECRET_SIG:
            return _secret_value(value)
        return {key: plain(item) for key, item in value.items()}
    return value


def _secret_value(value: Mapping[str, Any]) -> Any:
    if "value" in value:  # the wire form
        return plain(value["value"])
    if "plaintext" in value:  # `stack export --show-secrets`: the value JSON-encoded
        try:
            return plain(json.loads(value["plaintext"]))
        except (TypeError, ValueError):
            return SECRET_PLACEHOLDER
    return SECRET_PLACEHOLDER


def is_bookkeeping(type_token: str) -> bool:
    """The stack and providers: engine bookkeeping, not infrastructure. Every count of "resources"
    (preview, `preview --json`, check, diff) leaves them out, so the figures agree."""
    return type_token in _SKIPPED_TYPES or type_token.startswith(_SKIPPED_PREFIXES)


def _name_of(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def from_state(data: Any, path: str = "<state>") -> list[Resource]:
    """Resources of a `pulumi stack export` document: `{"version": 3, "deployment": {"resources": [...]}}`."""
    if not isinstance(data, dict) or not isinstance(data.get("deployment"), dict):
        raise InputError.single(
            "expected a `pulumi stack export` document with a top-level `deployment` object", file=path,
            field="deployment",
        )
    resources = data["deployment"].get("resources")
    if not isinstance(resources, list):
        raise InputError.single("expected the list of the stack's resources (`pulumi stack export` writes one)",
                                file=path, field="deployment.resources")
    out = []
    for index, raw in enumerate(resources):
        where = f"deployment.resources[{index}]"
        state = _object(raw, path, where)
        if state.get("delete") is True:
            continue  # pending deletion: not part of the stack any more
        resource = _resource(state, path, where, props_key="inputs")
        if resource is not None:
            out.append(resource)
    return out


def from_plan(data: Any, path: str = "<plan>") -> list[Resource]:
    """Resources a plan leaves in place: `pulumi preview --json` (`steps[].newState`) or the
    `accelplane preview --json` graph (`resources[]` with `inputs`)."""
    if isinstance(data, dict) and "resources" in data and "steps" not in data:
        if not isinstance(data["resources"], list):
            raise InputError.single("expected the list of resources `accelplane preview --json` writes", file=path,
                                    field="resources")
        return _from_offline_json(data["resources"], path)
    # `pulumi preview --json` always writes its `changeSummary`; `steps` is left out when nothing changes.
    if not isinstance(data, dict) or not isinstance(data.get("steps", []), list) or not (
        "steps" in data or isinstance(data.get("changeSummary"), dict)
    ):
        raise InputError.single(
            "expected `pulumi preview --json` output (a `steps` list) or `accelplane preview --json` output "
            "(a `resources` list)", file=path, field="steps",
        )
    latest: dict[str, Resource] = {}
    for index, raw in enumerate(data.get("steps") or []):
        where = f"steps[{index}]"
        step = _object(raw, path, where)
        op = step.get("op")
        if not isinstance(op, str):
            raise InputError.single("expected the step's operation as a string", file=path, field=f"{where}.op")
        if op in _GONE_OPS or step.get("newState") is None:
            continue
        state = _object(step["newState"], path, f"{where}.newState")
        resource = _resource(state, path, f"{where}.newState", props_key="inputs")
        if resource is not None:
            latest[resource.urn] = resource  # a replacement has several steps; the last one wins
    return list(latest.values())


def _from_offline_json(resources: list[Any], path: str) -> list[Resource]:
    out = []
    for index, raw in enumerate(resources):
        state = _object(raw, path, f"resources[{index}]")
        resource = _resource(state, path, f"resources[{index}]", props_key="inputs")
        if resource is not None:
            out.append(resource)
    return out


def _object(raw: Any, path: str, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise InputError.single("expected an object", file=path, field=where)
    return raw


def _resource(state: dict[str, Any], path: str, where: str, props_key: str) -> Resource | None:
    urn = state.get("urn")
    type_token = state.get("type")
    if not isinstance(urn, str) or not urn.startswith("urn:pulumi:"):
        raise InputError.single("expected a Pulumi URN (urn:pulumi:...)", file=path, field=f"{where}.urn")
    if not isinstance(type_token, str) or not type_token:
        raise InputError.single("expected a type token such as aws:s3/bucket:Bucket", file=path, field=f"{where}.type")
    if is_bookkeeping(type_token):
        return None
    props = state.get(props_key)
    outputs = state.get("outputs")
    props = {} if props is None else props
    outputs = {} if outputs is None else outputs
    for key, value in ((props_key, props), ("outputs", outputs)):
        if not isinstance(value, dict):
            raise InputError.single("expected an object", file=path, field=f"{where}.{key}")
    dependencies = state.get("dependencies") or []
    if not isinstance(dependencies, list) or not all(isinstance(d, str) for d in dependencies):
        raise InputError.single("expected a list of URNs", file=path, field=f"{where}.dependencies")
    property_dependencies = state.get("propertyDependencies") or {}
    if not isinstance(property_dependencies, dict):
        raise InputError.single("expected an object", file=path, field=f"{where}.propertyDependencies")
    parent = state.get("parent")
    resource_id = state.get("id")
    name = state.get("name")
    return Resource(
        urn=urn,
        type=type_token,
        name=name if isinstance(name, str) and name else _name_of(urn),
        props=plain(props),
        parent=parent if isinstance(parent, str) and parent else None,
        dependencies=tuple(dependencies),
        property_dependencies={str(k): tuple(_strings(v)) for k, v in property_dependencies.items()},
        protect=state.get("protect") is True,
        id=resource_id if isinstance(resource_id, str) and resource_id not in UNKNOWN_SENTINELS else None,
        outputs={k: v for k, v in plain(outputs).items() if v is not UNKNOWN},
    )


def _strings(values: Any) -> Iterable[str]:
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []


def load_file(path: Path, kind: str) -> list[Resource]:
    """`kind` is `state` or `plan`; read bounded (`accelplane.input_files.DOCUMENT_LIMIT`)."""
    data = read_json(path, limit=DOCUMENT_LIMIT, option=f"--{kind}")
    return from_state(data, str(path)) if kind == "state" else from_plan(data, str(path))


def stack_of(resources: Iterable[Resource], path: str) -> tuple[str, str] | None:
    """(stack, project) every URN of the document names (`urn:pulumi:<stack>::<project>::…`);
    None for a document without resources. A document mixing stacks is refused."""
    found: dict[tuple[str, str], str] = {}
    for resource in resources:
        parts = resource.urn.removeprefix("urn:pulumi:").split("::")
        if len(parts) < 4:
            raise InputError.single(f"malformed URN {resource.urn!r} (expected urn:pulumi:<stack>::<project>::"
                                    "<type>::<name>)", file=path, field="urn")
        found.setdefault((parts[0], parts[1]), resource.urn)
    if len(found) > 1:
        listed = "; ".join(f"stack {s} of project {p} ({urn})" for (s, p), urn in sorted(found.items())[:3])
        raise InputError.single(f"resources of more than one stack in one document: {listed}", file=path)
    return next(iter(found), None)
