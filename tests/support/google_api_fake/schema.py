"""A body checked against a discovery schema, as the real API would see it: an unknown field, a
wrong type or a value outside an enum is an error with its JSON path. Discovery's 64-bit
integers travel as strings (`"type": "string", "format": "int64"`)."""

from __future__ import annotations

_JSON_TYPES = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "object": (dict,),
    "array": (list,),
}


def errors(schemas: dict[str, dict], name: str, value: object, path: str = "$") -> list[str]:
    return _check(schemas, {"$ref": name}, value, path)


def _check(schemas: dict[str, dict], schema: dict, value: object, path: str) -> list[str]:
    if "$ref" in schema:
        schema = schemas[schema["$ref"]]
    kind = schema.get("type", "any")
    if kind == "any" or value is None:
        return []
    expected = _JSON_TYPES[kind]
    if not isinstance(value, expected) or (kind in ("integer", "number") and isinstance(value, bool)):
        return [f"{path}: expected {kind}, got {type(value).__name__}"]
    if kind == "string" and "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {schema['enum']}"]
    if kind == "array":
        return [
            problem
            for index, item in enumerate(value)  # type: ignore[arg-type]
            for problem in _check(schemas, schema.get("items", {}), item, f"{path}[{index}]")
        ]
    if kind == "object":
        return _check_object(schemas, schema, value, path)  # type: ignore[arg-type]
    return []


def _check_object(schemas: dict[str, dict], schema: dict, value: dict, path: str) -> list[str]:
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    problems: list[str] = []
    for key, item in value.items():
        if key in properties:
            problems.extend(_check(schemas, properties[key], item, f"{path}.{key}"))
        elif extra is not None:
            problems.extend(_check(schemas, extra, item, f"{path}.{key}"))
        else:
            problems.append(f"{path}: unknown field {key!r}")
    return problems
