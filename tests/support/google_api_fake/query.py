"""A request's query string checked against the method's documented parameters, as Google's front
end does: a parameter the method does not have is a 400 ("Cannot bind query parameter"), a value
that is not of the parameter's type or outside its enum is a 400, a repeated value for a
parameter that is not `repeated` is a 400, and a missing required one is a 400. The API-wide
parameters (`alt`, `fields`, `prettyPrint`, `quotaUser` ...) are accepted on every method."""

from __future__ import annotations

import re

from tests.support.google_api_fake.errors import ApiError
from tools.google_discovery import Api, Method

_INTEGER = re.compile(r"-?\d+")
# Discovery's integer formats and their ranges.
_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}


def parse(api: Api, method: Method, raw: dict[str, list[str]]) -> dict[str, str | list[str]]:
    """The query as the method sees it: a repeated parameter as a list, any other as one string."""
    known = {**api.parameters, **method.query}
    query: dict[str, str | list[str]] = {}
    for name, values in raw.items():
        spec = known.get(name)
        if spec is None:
            raise ApiError(
                400,
                f'Invalid JSON payload received. Unknown name "{name}": Cannot bind query parameter. '
                f"Field '{name}' could not be found in request message.",
            )
        if len(values) > 1 and not spec.get("repeated"):
            raise ApiError(400, f"Invalid value at '{name}': expected a single value, got {len(values)}")
        for value in values:
            problem = _value_problem(spec, value)
            if problem:
                raise ApiError(400, f"Invalid value at '{name}' ({spec.get('type')}), \"{value}\": {problem}")
        query[name] = list(values) if spec.get("repeated") else values[0]
    for name, spec in method.query.items():
        if spec.get("required") and name not in query:
            raise ApiError(400, f"Required parameter '{name}' is missing")
    return query


def _value_problem(spec: dict, value: str) -> str | None:
    kind = spec.get("type", "string")
    if kind == "integer" or spec.get("format") in _RANGES:
        if not _INTEGER.fullmatch(value):
            return "not an integer"
        low, high = _RANGES.get(spec.get("format", "int32"), _RANGES["int32"])
        number = int(value)
        if not low <= number <= high:
            return f"out of range [{low}, {high}]"
        for bound, compare in (("minimum", lambda n, b: n < b), ("maximum", lambda n, b: n > b)):
            if bound in spec and compare(number, int(spec[bound])):
                return f"{bound} is {spec[bound]}"
    elif kind == "boolean":
        if value not in ("true", "false"):
            return "expected true or false"
    elif "enum" in spec and value not in spec["enum"]:
        return f"not one of {spec['enum']}"
    return None
