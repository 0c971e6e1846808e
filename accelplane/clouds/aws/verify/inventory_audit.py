"""The collector's reads for the audit trail and a secret's rotation function (`Collector` runs each as a
chain of its own): CloudTrail by the declared trail name, and the resource policy of each function a
declared Lambda permission names."""

from __future__ import annotations

import json
from typing import Any, Protocol

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE, LiveInventory, tags_of
from accelplane.verify.declared import DeclaredPlatform


class Collector(Protocol):
    """What these reads use of `inventory.Collector` (named here so neither module imports the other)."""

    declared: DeclaredPlatform
    inventory: LiveInventory

    def call(self, service: str, operation: str, resource: str, **kwargs: Any) -> Any: ...


def read_trails(collector: Collector) -> None:
    """Each declared trail by its name: the trail, whether it is logging and delivering, its event
    selectors and tags. A trail that is gone is `NOT_FOUND` (missing); a failed read `UNREADABLE`."""
    for resource in collector.declared.of_type("aws:cloudtrail/trail:Trail"):
        name = resource.props.get("name")
        if not isinstance(name, str):
            continue
        found = collector.call("cloudtrail", "get_trail", name, Name=name)
        trail = found.get("Trail") if found else found
        if not trail:
            collector.inventory.trails[name] = trail
            continue
        arn = trail["TrailARN"]
        status = collector.call("cloudtrail", "get_trail_status", name, Name=arn)
        selectors = collector.call("cloudtrail", "get_event_selectors", name, TrailName=arn)
        tags = collector.call("cloudtrail", "list_tags", name, ResourceIdList=[arn])
        collector.inventory.trails[name] = {
            "trail": trail,
            "status": {k: v for k, v in status.items() if k != "ResponseMetadata"} if status else status,
            "selectors": selectors,
            "tags": (
                tags_of(next((t.get("TagsList") for t in tags.get("ResourceTagList", [])), None))
                if tags else tags
            ),
        }


def read_function_policies(collector: Collector) -> None:
    """The resource policy of each function a declared permission is on (the team's rotation function:
    not the stack's own, its policy statements are): statements, or `NOT_FOUND` where the function or
    its policy is gone."""
    permissions = collector.declared.of_type("aws:lambda/permission:Permission")
    for function in sorted({str(r.props.get("function")) for r in permissions}):
        found = collector.call("lambda", "get_policy", function, FunctionName=function)
        if found is UNREADABLE or not found:
            collector.inventory.function_policies[function] = found
            continue
        collector.inventory.function_policies[function] = json.loads(found["Policy"]).get("Statement") or []
