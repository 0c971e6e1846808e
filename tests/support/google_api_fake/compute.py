"""Compute Engine's methods with rules of their own, as its reference states them (the method and
field descriptions of compute.v1's discovery document):

- optimistic locking: a resource whose `fingerprint` description says an up-to-date fingerprint
  must be provided to update it (Subnetwork, SslPolicy, SecurityPolicy) gets one on insert; a
  `patch`/`update` without the current one fails with 412 conditionNotMet, and every change
  gives it a new one;
- a field whose description says it is updated "using <method>" (a subnetwork's
  `privateIpGoogleAccess`: `setPrivateIpGoogleAccess`) cannot change through `patch` (400);
- `securityPolicies.patch` "cannot be used to update the rules in the policy": rules change with
  `addRule`, `patchRule` (by `priority`), `removeRule`; `getRule` reads one; the default rule
  (priority 2147483647) cannot be removed;
- `subnetworks.setPrivateIpGoogleAccess` sets that one field.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
from dataclasses import replace

from tests.support.google_api_fake.errors import ApiError
from tests.support.google_api_fake.state import STANDARD, Call, State
from tools import google_discovery as discovery

_DEFAULT_RULE_PRIORITY = 2147483647
_SET_BY_METHOD = re.compile(r"updated\s+using\s+(\w+)")


def _api() -> discovery.Api:
    return discovery.load("compute", "v1")


def _locked_schemas() -> set[str]:
    """The schemas whose fingerprint the reference requires on update."""
    found = set()
    for name, schema in _api().schemas.items():
        description = " ".join(schema.get("properties", {}).get("fingerprint", {}).get("description", "").split())
        if any(text in description for text in ("up-to-date fingerprint must be provided",
                                                 "must always provide an up-to-date")):
            found.add(name)
    return found


def _fingerprint(state: State, path: str) -> str:
    return hashlib.sha256(f"{path}/{next(state._serial)}".encode()).hexdigest()[:12]


def _insert_locked(state: State, call: Call) -> dict:
    api = _api()
    body = dict(call.body or {})
    body.pop("fingerprint", None)  # "ignored when inserting"
    answer = STANDARD["insert"](state, api, replace(call, body=body))
    path = f"{call.path}/{body.get('name')}"
    state.existing(api, path)["fingerprint"] = _fingerprint(state, path)
    return answer


def _check_fingerprint(state: State, call: Call) -> None:
    current = state.existing(_api(), call.path).get("fingerprint")
    given = (call.body or {}).get("fingerprint")
    if given != current:
        raise ApiError(
            412,
            f"Invalid fingerprint: the request's fingerprint {given!r} is not the resource's current one "
            "(conditionNotMet); get the resource and retry with its fingerprint.",
        )


@functools.cache
def _settable_only_by_method(schema_name: str) -> dict[str, str]:
    """Field -> the method the reference says updates it."""
    fields = {}
    for name, spec in _api().schemas.get(schema_name, {}).get("properties", {}).items():
        match = _SET_BY_METHOD.search(" ".join(spec.get("description", "").split()))
        if match:
            fields[name] = match.group(1)
    return fields


def _patch_locked(schema_name: str, *, rules_elsewhere: bool = False):
    def handler(state: State, call: Call) -> dict:
        api = _api()
        _check_fingerprint(state, call)
        current = state.existing(api, call.path)
        body = dict(call.body or {})
        for name, method in _settable_only_by_method(schema_name).items():
            if name in body and body[name] != current.get(name):
                raise ApiError(400, f"{schema_name}.{name} cannot be changed by patch: it is updated using {method}.")
        if rules_elsewhere and "rules" in body and body["rules"] != current.get("rules"):
            raise ApiError(
                400,
                "securityPolicies.patch cannot be used to update the rules in the policy: use addRule, "
                "patchRule or removeRule.",
            )
        body.pop("fingerprint", None)
        answer = STANDARD[call.method.name](state, api, replace(call, body=body))
        state.existing(api, call.path)["fingerprint"] = _fingerprint(state, call.path)
        return answer

    return handler


def _policy_path(call: Call) -> str:
    """`…/securityPolicies/{policy}/addRule` (or patchRule, removeRule, getRule) -> the policy's path."""
    return call.path.rsplit("/", 1)[0]


def _priority(call: Call) -> int:
    value = call.query.get("priority")
    return int(value) if value is not None else 0  # proto3: an absent int32 is 0


def _rules(state: State, call: Call) -> tuple[dict, list[dict]]:
    policy = state.existing(_api(), _policy_path(call))
    return policy, policy.setdefault("rules", [])


def _changed(state: State, call: Call, policy: dict) -> dict:
    policy["fingerprint"] = _fingerprint(state, _policy_path(call))
    return state.operation(_api(), call.method.response, call, _policy_path(call))


def _find_rule(rules: list[dict], priority: int) -> dict:
    for rule in rules:
        if int(rule.get("priority", 0)) == priority:
            return rule
    raise ApiError(400, f"Invalid value for field 'priority': '{priority}'. The rule does not exist.")


def add_rule(state: State, call: Call) -> dict:
    policy, rules = _rules(state, call)
    rule = copy.deepcopy(call.body or {})
    priority = int(rule.get("priority", 0))
    if any(int(existing.get("priority", 0)) == priority for existing in rules):
        raise ApiError(400, f"Invalid value for field 'resource.priority': '{priority}'. "
                            "Cannot have rules with the same priorities.")
    rules.append(rule)
    rules.sort(key=lambda item: int(item.get("priority", 0)))
    return _changed(state, call, policy)


def patch_rule(state: State, call: Call) -> dict:
    policy, rules = _rules(state, call)
    rule = _find_rule(rules, _priority(call))
    change = call.body or {}
    mask = call.query.get("updateMask")
    if mask:
        for name in str(mask).split(","):
            name = name.strip()
            if name in change:
                rule[name] = copy.deepcopy(change[name])
            else:
                rule.pop(name, None)
    else:
        for name, value in change.items():
            rule[name] = copy.deepcopy(value)
    rules.sort(key=lambda item: int(item.get("priority", 0)))
    return _changed(state, call, policy)


def remove_rule(state: State, call: Call) -> dict:
    policy, rules = _rules(state, call)
    priority = _priority(call)
    if priority == _DEFAULT_RULE_PRIORITY:
        raise ApiError(400, "Invalid value for field 'priority': '2147483647'. The default rule cannot be removed.")
    rules.remove(_find_rule(rules, priority))
    return _changed(state, call, policy)


def get_rule(state: State, call: Call) -> dict:
    _policy, rules = _rules(state, call)
    return copy.deepcopy(_find_rule(rules, _priority(call)))


def set_private_ip_google_access(state: State, call: Call) -> dict:
    api = _api()
    path = call.path.rsplit("/setPrivateIpGoogleAccess", 1)[0]
    subnetwork = state.existing(api, path)
    subnetwork["privateIpGoogleAccess"] = bool((call.body or {}).get("privateIpGoogleAccess"))
    subnetwork["fingerprint"] = _fingerprint(state, path)
    return state.operation(api, call.method.response, call, path)


def install(fake) -> None:
    api = _api()
    collections = {"Subnetwork": "subnetworks", "SslPolicy": "sslPolicies", "SecurityPolicy": "securityPolicies"}
    for schema_name in sorted(_locked_schemas() & set(collections)):
        collection = collections[schema_name]
        fake.handle(f"compute.{collection}.insert", _insert_locked)
        for verb in ("patch", "update"):
            method_id = f"compute.{collection}.{verb}"
            if any(method.id == method_id for method in api.methods):
                fake.handle(method_id, _patch_locked(schema_name, rules_elsewhere=collection == "securityPolicies"))
    fake.handle("compute.securityPolicies.addRule", add_rule)
    fake.handle("compute.securityPolicies.patchRule", patch_rule)
    fake.handle("compute.securityPolicies.removeRule", remove_rule)
    fake.handle("compute.securityPolicies.getRule", get_rule)
    fake.handle("compute.subnetworks.setPrivateIpGoogleAccess", set_private_ip_google_access)
