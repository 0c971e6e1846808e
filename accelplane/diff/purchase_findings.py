"""AP-CAP-002 in a diff: each capacity purchase of the base revision that the change deletes, renames or
re-buys (accelplane.capacity.purchases judges; this turns its answers into the diff's findings)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.capacity.purchases import purchase_problems, purchase_rule
from accelplane.report.document import Item
from accelplane.report.findings import item
from accelplane.rules.rule import Enforcement, Finding


def purchase_findings(base_document: Mapping[str, Any], head_document: Mapping[str, Any]) -> list[Item]:
    found = []
    rule = None
    for resource, why in purchase_problems(_resources(base_document), _resources(head_document)):
        urn = str(resource.get("urn"))
        rule = rule or purchase_rule()
        finding = Finding(rule=rule, urn=urn, type=str(resource.get("type")), name=urn.rsplit("::", 1)[-1],
                          message=why, enforcement=Enforcement.mandatory)
        found.append(item(finding, strict=False))
    return found


def _resources(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in document.get("resources") or [] if isinstance(r, Mapping)]
