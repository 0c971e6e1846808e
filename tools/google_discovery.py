"""The one reader of Google's API discovery documents: the ones google-api-python-client ships
(googleapiclient/discovery_cache/documents/<api>.<version>.json), else the one the project commits
for an API the wheel has no document for (accelplane/clouds/gcp/discovery/).

`document(api, version)` is a document as JSON (tools/refresh_gcp_catalog.py extracts the catalog from
it, tests/gcp/gcp_discovery.py checks recorded inputs against it); `load(api, version)` reads it into
routes for the Google API fake (tests/support/google_api_fake): for each REST method, its HTTP verb, a
pattern over the path below the API's service path, its query parameters and its schemas."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import googleapiclient

DOCUMENTS = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"
LOCAL_DOCUMENTS = Path(__file__).resolve().parents[1] / "accelplane" / "clouds" / "gcp" / "discovery"
_PARAMETER = re.compile(r"\{(\+?)([A-Za-z0-9_]+)\}")


@dataclass(frozen=True)
class Method:
    id: str  # e.g. container.projects.locations.clusters.get
    name: str  # the last part: get, list, insert, setIamPolicy ...
    http_method: str
    template: str  # the flat path below the service path
    pattern: re.Pattern[str]
    parameters: tuple[str, ...]  # the path parameters, in the order the template names them
    request: str | None  # schema names
    response: str | None
    query: dict[str, dict] = field(default_factory=dict)  # the method's query parameters, as documented
    description: str = ""

    @property
    def literal_length(self) -> int:
        return len(_PARAMETER.sub("", self.template))


@dataclass(frozen=True)
class Api:
    name: str
    version: str
    service_path: str
    schemas: dict[str, dict]
    methods: tuple[Method, ...]
    # Parameters every method of the API takes (`fields`, `alt`, `prettyPrint`, `quotaUser` ...).
    parameters: dict[str, dict] = field(default_factory=dict)

    def method(self, method_id: str) -> Method:
        return next(method for method in self.methods if method.id == method_id)

    def route(self, http_method: str, path: str) -> tuple[Method, dict[str, str]] | None:
        """The method a request is for, and its path parameters; the most literal template wins, as
        a custom verb (`…/secrets/{id}:getIamPolicy`) is more literal than the plain resource."""
        for method in self.methods:
            if method.http_method != http_method:
                continue
            match = method.pattern.fullmatch(path)
            if match:
                return method, dict(zip(method.parameters, match.groups(), strict=True))
        return None


def _pattern(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    parts: list[str] = []
    names: list[str] = []
    position = 0
    for match in _PARAMETER.finditer(template):
        parts.append(re.escape(template[position : match.start()]))
        # `{+name}` may hold slashes (a resource name); `{name}` is one segment, up to a custom verb.
        parts.append("(.+?)" if match.group(1) else "([^/:]+)")
        names.append(match.group(2))
        position = match.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts)), tuple(names)


def _methods(resources: dict) -> list[dict]:
    found: list[dict] = []
    for resource in resources.values():
        found.extend(resource.get("methods", {}).values())
        found.extend(_methods(resource.get("resources", {})))
    return found


@functools.cache
def document(name: str, version: str) -> dict:
    """The discovery document of API `name` at `version`, as JSON."""
    path = DOCUMENTS / f"{name}.{version}.json"
    if not path.is_file():
        # An API google-api-python-client has no document for: the one the project commits.
        path = LOCAL_DOCUMENTS / f"{name}.{version}.json"
    if not path.is_file():
        raise LookupError(f"google-api-python-client ships no discovery document {path.name}")
    return json.loads(path.read_text(encoding="utf-8"))


@functools.cache
def load(name: str, version: str) -> Api:
    raw = document(name, version)
    methods = []
    for method in _methods(raw.get("resources", {})):
        template = method.get("flatPath") or method["path"]
        pattern, parameters = _pattern(template)
        methods.append(
            Method(
                id=method["id"],
                name=method["id"].rsplit(".", 1)[-1],
                http_method=method["httpMethod"],
                template=template,
                pattern=pattern,
                parameters=parameters,
                request=method.get("request", {}).get("$ref"),
                response=method.get("response", {}).get("$ref"),
                query={
                    name: spec for name, spec in method.get("parameters", {}).items() if spec.get("location") == "query"
                },
                description=method.get("description", ""),
            )
        )
    methods.sort(key=lambda method: method.literal_length, reverse=True)
    return Api(
        name=name,
        version=version,
        service_path=raw.get("servicePath", ""),
        schemas=raw.get("schemas", {}),
        methods=tuple(methods),
        parameters=raw.get("parameters", {}),
    )
