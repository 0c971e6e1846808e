"""Compute Engine's `aggregatedList` for a zonal collection (`compute.reservations.aggregatedList`): every
member of every zone of the project, grouped under `zones/<zone>` as the reference shows, with `filter`
applied (the same grammar as `list`) and the pages of the flattened members (`maxResults`, `pageToken`),
a zone with nothing on a page left out."""

from __future__ import annotations

import copy
import re

from tests.support.google_api_fake import listing
from tests.support.google_api_fake.state import Call, State
from tools import google_discovery as discovery

_ZONAL = re.compile(r"^compute/v1/projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)/(?P<collection>[^/]+)/[^/]+$")


def _aggregated(collection: str):
    def serve(state: State, call: Call) -> dict:
        project = call.path.split("/", 2)[1]
        members = []
        for key, resource in sorted(state.resources.items()):
            found = _ZONAL.match(key)
            if found and found["project"] == project and found["collection"] == collection:
                members.append((found["zone"], copy.deepcopy(resource)))
        kept = {id(resource) for resource in listing.apply_filter([r for _, r in members], call.query.get("filter"))}
        members = [(zone, resource) for zone, resource in members if id(resource) in kept]
        page, token = listing.page(members, call.query, pages=True, limit=state.page_size)  # type: ignore[arg-type]
        items: dict[str, dict] = {}
        for zone, resource in page:
            items.setdefault(f"zones/{zone}", {collection: []})[collection].append(resource)
        answer: dict = {"kind": f"compute#{collection[:-1]}AggregatedList", "items": items}
        if token is not None:
            answer["nextPageToken"] = token
        return answer

    return serve


def install(fake) -> None:
    api = discovery.load("compute", "v1")
    for collection in ("reservations",):
        method_id = f"compute.{collection}.aggregatedList"
        if any(method.id == method_id for method in api.methods):
            fake.handle(method_id, _aggregated(collection))
