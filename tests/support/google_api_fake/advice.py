"""Compute Engine's calendar-mode advice (`compute.advice.calendarMode`, compute v1) as the fake serves
it: what the test put in `state.calendar` (zone, machine type, machines free, from when) is the
capacity Google could schedule, and the answer recommends a zone and dates the way the reference
describes — one spec per request (400 otherwise, "only one value is allowed in this map"), a start
inside the requested window, the requested duration, and only zones the location policy allows in the
request's region. Nothing fits: no recommendation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.google_api_fake.errors import ApiError
from tests.support.google_api_fake.state import Call, State


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _seconds(text: str) -> int:
    if not text.endswith("s"):
        raise ApiError(400, f"Invalid value for duration: {text!r} (expected seconds, e.g. '86400s')")
    return int(float(text[:-1]))


def calendar_mode(state: State, call: Call) -> dict:
    region = call.path.split("/regions/", 1)[1].split("/", 1)[0]
    specs = (call.body or {}).get("futureResourcesSpecs") or {}
    if len(specs) != 1:
        raise ApiError(400, "Invalid value for field 'resource.futureResourcesSpecs': only one value is allowed")
    key, spec = next(iter(specs.items()))
    sku = ((spec.get("targetResources") or {}).get("specificSkuResources")) or {}
    if not sku.get("machineType") or not sku.get("instanceCount"):
        raise ApiError(400, "Required field 'specificSkuResources.machineType' or 'instanceCount' not specified")
    window = spec.get("timeRangeSpec") or {}
    earliest, latest = _when(window["startTimeNotEarlierThan"]), _when(window["startTimeNotLaterThan"])
    duration = _seconds(window.get("minDuration") or window["maxDuration"])
    allowed = {name.removeprefix("zones/") for name, choice in
               ((spec.get("locationPolicy") or {}).get("locations") or {}).items()
               if (choice or {}).get("preference") == "ALLOW"}
    recommendations: list[dict[str, Any]] = []
    for zone, machine, free, available in getattr(state, "calendar", []):
        if machine != sku["machineType"] or free < int(sku["instanceCount"]) or not zone.startswith(region + "-"):
            continue
        if allowed and zone not in allowed:
            continue
        start = max(earliest, available.astimezone(UTC))
        if start > latest:
            continue
        end = start + timedelta(seconds=duration)
        recommendations.append({"recommendationsPerSpec": {key: {
            "recommendationId": f"rec-{zone}-{start:%Y%m%d%H%M}", "recommendationType": "FUTURE_RESERVATION",
            "location": f"zones/{zone}", "startTime": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "endTime": end.strftime("%Y-%m-%dT%H:%M:%SZ")}}})
    return {"recommendations": recommendations} if recommendations else {}


def install(fake: Any) -> None:
    fake.handle("compute.advice.calendarMode", calendar_mode)
