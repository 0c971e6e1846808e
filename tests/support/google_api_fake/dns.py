"""Cloud DNS's methods with rules of their own, as its v1 reference and discovery document state them:

- a record set is keyed by its fully qualified `name` (ending in ".") and `type`, inside a managed
  zone whose `dnsName` it must fall under (400 otherwise);
- `resourceRecordSets.list` restricts to `name` (and `type`, which needs `name`: 400 without it),
  pages with `maxResults`/`pageToken`;
- `resourceRecordSets.create` refuses a set that exists (409 alreadyExists);
- a record set holds either `rrdatas` or a `routingPolicy`, not both (400), and a weighted-round-robin
  item's `weight` must be non-negative (400);
- `changes.create` applies its deletions, then its additions, as one change or not at all: a deletion
  that is not exactly the record set the zone holds fails with 412 ("Precondition not met for
  'entity.change.deletions[N]'"), an addition of a set that exists with 409, an empty change with 400.
  The answer is the Change, `status` "done"; `changes.get` reads it back.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.support.google_api_fake import listing
from tests.support.google_api_fake.errors import ApiError
from tests.support.google_api_fake.state import Call, State
from tools import google_discovery as discovery


def _api() -> discovery.Api:
    return discovery.load("dns", "v1")


def _zone(state: State, call: Call) -> tuple[str, dict]:
    """The zone's path and resource (404 when it does not exist)."""
    zone_path = call.path.split("/rrsets", 1)[0].split("/changes", 1)[0]
    return zone_path, state.existing(_api(), zone_path)


def _checked(zone: dict, record: dict, where: str) -> dict:
    name, kind = str(record.get("name") or ""), str(record.get("type") or "")
    if not name or not kind:
        raise ApiError(400, f"Invalid value for '{where}': a record set needs a name and a type")
    if not name.endswith("."):
        raise ApiError(400, f"Invalid value for '{where}.name': '{name}' (it must be fully qualified, ending in '.')")
    if not (name == zone["dnsName"] or name.endswith("." + zone["dnsName"])):
        raise ApiError(400, f"Invalid value for '{where}.name': '{name}' is not in zone '{zone['dnsName']}'")
    policy = record.get("routingPolicy")
    if policy and record.get("rrdatas"):
        raise ApiError(400, f"Invalid value for '{where}': rrdatas and routingPolicy cannot both be set")
    for index, item in enumerate(((policy or {}).get("wrr") or {}).get("items") or []):
        if float(item.get("weight", 0)) < 0:
            raise ApiError(400, f"Invalid value for '{where}.routingPolicy.wrr.items[{index}].weight': "
                                f"{item.get('weight')} (it must be non-negative)")
    return record


def _key(state: State, zone_path: str, record: dict) -> str:
    return state.key(_api(), f"{zone_path}/rrsets/{record['name']}/{record['type']}")


def _stored(record: dict) -> dict:
    found = copy.deepcopy(record)
    found["kind"] = "dns#resourceRecordSet"
    return found


def _same(left: Any, right: Any) -> bool:
    """Equal as Cloud DNS compares a deletion with the zone's record set: field by field, `kind` aside,
    numbers by value."""
    if isinstance(left, dict) and isinstance(right, dict):
        keys = (set(left) | set(right)) - {"kind"}
        return all(_same(left.get(key), right.get(key)) for key in keys)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return float(left) == float(right)
    return left == right


def list_record_sets(state: State, call: Call) -> dict:
    zone_path, _ = _zone(state, call)
    name, kind = call.query.get("name"), call.query.get("type")
    if kind and not name:
        raise ApiError(400, "Invalid value for 'type': it can only be given with 'name'")
    prefix = state.key(_api(), f"{zone_path}/rrsets/")
    members = [copy.deepcopy(record) for key, record in sorted(state.resources.items()) if key.startswith(prefix)
               and (not name or record["name"] == name) and (not kind or record["type"] == kind)]
    members, token = listing.page(members, call.query, pages=True, limit=state.page_size)
    answer: dict = {"kind": "dns#resourceRecordSetsListResponse", "rrsets": members}
    if token is not None:
        answer["nextPageToken"] = token
    return answer


def create_record_set(state: State, call: Call) -> dict:
    zone_path, zone = _zone(state, call)
    record = _checked(zone, dict(call.body or {}), "entity.rrset")
    key = _key(state, zone_path, record)
    if key in state.resources:
        raise ApiError(409, f"The resource 'entity.rrset' named '{record['name']} ({record['type']})' already exists")
    state.resources[key] = _stored(record)
    return copy.deepcopy(state.resources[key])


def create_change(state: State, call: Call) -> dict:
    zone_path, zone = _zone(state, call)
    body = call.body or {}
    deletions, additions = list(body.get("deletions") or []), list(body.get("additions") or [])
    if not deletions and not additions:
        raise ApiError(400, "The 'entity.change' resource must have additions or deletions")
    after = dict(state.resources)  # applied only when every part holds
    for index, record in enumerate(deletions):
        _checked(zone, record, f"entity.change.deletions[{index}]")
        key = _key(state, zone_path, record)
        if key not in after or not _same(after[key], record):
            raise ApiError(412, f"Precondition not met for 'entity.change.deletions[{index}]'")
        del after[key]
    for index, record in enumerate(additions):
        _checked(zone, record, f"entity.change.additions[{index}]")
        key = _key(state, zone_path, record)
        if key in after:
            raise ApiError(409, f"The resource 'entity.change.additions[{index}]' named '{record['name']} "
                                f"({record['type']})' already exists")
        after[key] = _stored(record)
    state.resources = after
    change_id = str(next(state._serial))
    change = {"kind": "dns#change", "id": change_id, "status": "done", "startTime": "2026-12-07T00:00:00.000Z",
              "additions": [_stored(record) for record in additions],
              "deletions": [_stored(record) for record in deletions]}
    state.resources[state.key(_api(), f"{zone_path}/changes/{change_id}")] = change
    return copy.deepcopy(change)


def install(fake: Any) -> None:
    fake.handle("dns.resourceRecordSets.list", list_record_sets)
    fake.handle("dns.resourceRecordSets.create", create_record_set)
    fake.handle("dns.changes.create", create_change)
