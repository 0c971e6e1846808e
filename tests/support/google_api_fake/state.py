"""What the fake keeps: every resource by its path below the API's service path, and IAM
policies beside them. Standard methods (get, list, insert/create, patch, update, delete,
getIamPolicy, setIamPolicy, testIamPermissions) act on it generically from the discovery
document; a method with semantics of its own (GKE's cluster `update`, a node pool's
`setAutoscaling` ...) is served by a handler registered for its id, and any other answers 501
naming it, so a test never passes against a method the fake only pretends to serve."""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.google_api_fake import listing, schema
from tests.support.google_api_fake.errors import ApiError
from tools.google_discovery import Api, Method

__all__ = ["STANDARD", "ApiError", "Call", "Handler", "State"]

_VERSION_PREFIX = re.compile(r"^v\d[a-z0-9]*/")
_VERB = re.compile(r"(:[A-Za-z]+|/(getIamPolicy|setIamPolicy|testIamPermissions))$")


@dataclass
class Call:
    api: str
    method: Method
    path: str  # below the service path, custom verb included
    query: dict  # parameter -> value (a list for a repeated parameter), checked against the method
    body: dict | None


Handler = Callable[["State", Call], dict]


@dataclass
class State:
    resources: dict[str, dict] = field(default_factory=dict)
    policies: dict[str, dict] = field(default_factory=dict)
    handlers: dict[str, Handler] = field(default_factory=dict)
    # The most members a list answers in one page (a request may ask fewer): 1 in the tests, so the
    # clients' paging code always runs.
    page_size: int = 1
    # testIamPermissions answers only what a test granted: resource path (or "*") -> permissions.
    granted: dict[str, set[str]] = field(default_factory=dict)
    _serial: itertools.count = field(default_factory=lambda: itertools.count(1))

    def snapshot(self) -> tuple[dict[str, dict], dict[str, dict], int]:
        """What the fake holds, as a copy a later fake can `restore` (the serial too, so fingerprints
        and operation names stay unique)."""
        serial = next(self._serial)
        self._serial = itertools.count(serial + 1)
        return copy.deepcopy(self.resources), copy.deepcopy(self.policies), serial + 1

    def restore(self, snapshot: tuple[dict[str, dict], dict[str, dict], int]) -> None:
        resources, policies, serial = snapshot
        self.resources = copy.deepcopy(resources)
        self.policies = copy.deepcopy(policies)
        self._serial = itertools.count(serial)

    def key(self, api: Api, path: str) -> str:
        return f"{api.name}/{api.version}/{path}"

    def serve(self, api: Api, call: Call) -> dict:
        handler = self.handlers.get(call.method.id)
        if handler is not None:
            return handler(self, call)
        standard = STANDARD.get(call.method.name)
        if standard is None:
            raise ApiError(501, f"the fake does not implement {call.method.id}; register a handler for it")
        return standard(self, api, call)

    # -- helpers shared by the standard methods and handlers -----------------------------------

    def existing(self, api: Api, path: str) -> dict:
        found = self.resources.get(self.key(api, path))
        if found is None:
            raise ApiError(404, f"The resource '{_resource_name(path)}' was not found")
        return found

    def operation(self, api: Api, schema_name: str | None, call: Call, target: str) -> dict:
        """A finished operation in the shape the method's response schema has."""
        if schema_name is None or schema_name == "Empty":
            return {}
        properties = api.schemas.get(schema_name, {}).get("properties", {})
        serial = next(self._serial)
        values = {
            "kind": properties.get("kind", {}).get("default"),
            "id": str(serial),
            "name": f"operation-{serial}",
            "status": "DONE",
            "done": True,
            "operationType": call.method.name,
            "targetLink": f"https://fake.googleapis.com/{target}",
            "selfLink": f"https://fake.googleapis.com/{call.path}/operations/operation-{serial}",
            "progress": 100,
        }
        if "enum" in properties.get("operationType", {}):  # GKE: CREATE_CLUSTER, DELETE_NODE_POOL ...
            verb = call.method.name.upper().replace("INSERT", "CREATE")
            values["operationType"] = next(
                (value for value in properties["operationType"]["enum"] if value.startswith(verb)), "TYPE_UNSPECIFIED"
            )
        return {
            key: value
            for key, value in values.items()
            if key in properties and value is not None and not schema.errors(api.schemas, schema_name, {key: value})
        }


def _resource_name(path: str) -> str:
    return _VERSION_PREFIX.sub("", path)


def _resource_schema(api: Api, collection: str) -> str | None:
    """The schema a collection's members have: what its `get` answers."""
    for method in api.methods:
        if method.name == "get" and method.http_method == "GET" and method.pattern.fullmatch(f"{collection}/x"):
            return method.response
    return None


def _unwrap(api: Api, request: str | None, resource: str | None, body: dict) -> dict:
    """A create request that wraps the resource (GKE's {"cluster": …}, IAM's {"serviceAccount": …})."""
    if request is None or request == resource:
        return body
    for name, spec in api.schemas.get(request, {}).get("properties", {}).items():
        if spec.get("$ref") == resource and resource is not None:
            return dict(body.get(name) or {})
    raise ApiError(501, f"the fake cannot tell the resource in a {request}; register a handler")


def _get(state: State, api: Api, call: Call) -> dict:
    return copy.deepcopy(state.existing(api, call.path))


def _list(state: State, api: Api, call: Call) -> dict:
    prefix = state.key(api, call.path) + "/"
    members = [
        copy.deepcopy(resource)
        for key, resource in sorted(state.resources.items())
        if key.startswith(prefix) and "/" not in key[len(prefix) :]
    ]
    properties = api.schemas.get(call.method.response or "", {}).get("properties", {})
    field_name = next(
        (name for name, spec in properties.items() if spec.get("type") == "array" and "$ref" in spec.get("items", {})),
        None,
    )
    if field_name is None:
        raise ApiError(501, f"the fake cannot tell the list field of {call.method.response}")
    members = listing.apply_filter(members, call.query.get("filter"))
    pages = "pageToken" in call.method.query
    members, next_token = listing.page(members, call.query, pages=pages, limit=state.page_size)
    answer: dict = {field_name: members} if members else {}
    if next_token is not None:
        answer["nextPageToken"] = next_token
    if "kind" in properties and properties["kind"].get("default"):
        answer["kind"] = properties["kind"]["default"]
    return answer


def _create(state: State, api: Api, call: Call) -> dict:
    schema = _resource_schema(api, call.path)
    resource = _unwrap(api, call.method.request, schema, call.body or {})
    # The id parameter the method documents (`secretId`, `keyRingId`, `certificateMapId` ...), if it
    # has one; otherwise the name in the body (Compute, GKE) or IAM's `accountId`.
    id_parameter = _id_parameter(call.method)
    identifier = call.query.get(id_parameter) if id_parameter else None
    if id_parameter and not identifier:
        raise ApiError(400, f"{call.method.id}: the request has no {id_parameter}")
    identifier = identifier or (call.body or {}).get("accountId") or str(resource.get("name", "")).rsplit("/", 1)[-1]
    if not identifier:
        raise ApiError(400, f"{call.method.id}: no name for the new resource")
    path = f"{call.path}/{identifier}"
    key = state.key(api, path)
    if key in state.resources:
        raise ApiError(409, f"The resource '{_resource_name(path)}' already exists")
    properties = api.schemas.get(schema or "", {}).get("properties", {})
    if "name" in properties and "name" not in resource:
        resource["name"] = identifier if api.name == "compute" else _resource_name(path)
    if "selfLink" in properties:
        resource.setdefault("selfLink", f"https://{api.name}.googleapis.com/{api.service_path}{path}")
    if "kind" in properties and properties["kind"].get("default"):
        resource.setdefault("kind", properties["kind"]["default"])
    state.resources[key] = resource
    if call.method.response == schema:
        return copy.deepcopy(resource)
    return state.operation(api, call.method.response, call, path)


def _merge(target: dict, patch: dict) -> dict:
    """JSON merge patch (RFC 7396), as Compute's PATCH methods document."""
    for name, value in patch.items():
        if value is None:
            target.pop(name, None)
        elif isinstance(value, dict) and isinstance(target.get(name), dict):
            _merge(target[name], value)
        else:
            target[name] = copy.deepcopy(value)
    return target


def _patch(state: State, api: Api, call: Call) -> dict:
    resource = state.existing(api, call.path)
    schema = _resource_schema(api, call.path.rsplit("/", 1)[0])
    change = _unwrap(api, call.method.request, schema, call.body or {})
    mask = call.query.get("updateMask")
    if mask:
        for dotted in mask.split(","):
            source, target = change, resource
            *parents, last = dotted.strip().split(".")
            for part in parents:
                source = source.get(part, {})
                target = target.setdefault(part, {})
            if last in source:
                target[last] = copy.deepcopy(source[last])
            else:
                target.pop(last, None)
    else:
        _merge(resource, change)
    if call.method.response == schema:
        return copy.deepcopy(resource)
    return state.operation(api, call.method.response, call, call.path)


def _update(state: State, api: Api, call: Call) -> dict:
    current = state.existing(api, call.path)
    schema = _resource_schema(api, call.path.rsplit("/", 1)[0])
    replacement = _unwrap(api, call.method.request, schema, call.body or {})
    for kept in ("name", "selfLink", "kind", "id"):
        if kept in current:
            replacement.setdefault(kept, current[kept])
    state.resources[state.key(api, call.path)] = replacement
    if call.method.response == schema:
        return copy.deepcopy(replacement)
    return state.operation(api, call.method.response, call, call.path)


def _delete(state: State, api: Api, call: Call) -> dict:
    state.existing(api, call.path)
    key = state.key(api, call.path)
    for gone in [name for name in state.resources if name == key or name.startswith(key + "/")]:
        del state.resources[gone]
        state.policies.pop(gone, None)
    return state.operation(api, call.method.response, call, call.path)


def _target(call: Call) -> str:
    return _VERB.sub("", call.path)


def _get_iam_policy(state: State, api: Api, call: Call) -> dict:
    target = _target(call)
    state.existing(api, target)
    return copy.deepcopy(state.policies.get(state.key(api, target), {"version": 1, "etag": "ACAB"}))


def _set_iam_policy(state: State, api: Api, call: Call) -> dict:
    target = _target(call)
    state.existing(api, target)
    key = state.key(api, target)
    request = call.body or {}
    policy = dict(request.get("policy") or {})
    current = state.policies.get(key, {"etag": "ACAB"})
    if policy.get("etag") and policy["etag"] != current.get("etag"):
        raise ApiError(409, "There were concurrent policy changes. Please retry the whole read-modify-write.")
    # SetIamPolicyRequest.updateMask: "Only the fields in the mask will be modified. If no mask is
    # provided, the following default mask is used: `paths: "bindings, etag"`" (the discovery
    # documents of Resource Manager, Cloud KMS, Secret Manager): a policy's auditConfigs change only
    # when the mask names them.
    mask = {path.strip() for path in str(request.get("updateMask") or "bindings,etag").split(",")}
    updated = {name: value for name, value in current.items() if name not in mask}
    updated.update({name: value for name, value in policy.items() if name in mask or name == "version"})
    updated["etag"] = f"BwY{next(state._serial):05d}"
    updated.setdefault("version", 1)
    state.policies[key] = updated
    return copy.deepcopy(updated)


_NOT_NEW_IDS = frozenset({"requestId", "projectId", "clusterId", "nodePoolId", "operationId", "clientOperationId"})


def _id_parameter(method: Method) -> str | None:
    # Compute's requestId and Cloud DNS's clientOperationId (idempotence), and GKE's deprecated
    # projectId/clusterId, name no new resource.
    names = [name for name in method.query if name.endswith("Id") and name not in _NOT_NEW_IDS]
    return names[0] if len(names) == 1 else None


def _test_iam_permissions(state: State, api: Api, call: Call) -> dict:
    """The asked permissions the caller holds on the resource: only those a test granted
    (`GoogleApiFake.grant`), as the real API answers for credentials with no role there."""
    target = _target(call)
    state.existing(api, target)
    held = state.granted.get(state.key(api, target), set()) | state.granted.get("*", set())
    permissions = [permission for permission in (call.body or {}).get("permissions") or [] if permission in held]
    return {"permissions": permissions} if permissions else {}


STANDARD: dict[str, Callable[[State, Api, Call], dict]] = {
    "get": _get,
    "list": _list,
    "insert": _create,
    "create": _create,
    "patch": _patch,
    "update": _update,
    "delete": _delete,
    "getIamPolicy": _get_iam_policy,
    "setIamPolicy": _set_iam_policy,
    "testIamPermissions": _test_iam_permissions,
}
