"""AP-TAG-001: taggable resources carry the required tags (owner, cost-centre, platform, environment)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str

REQUIRED_TAGS = ("owner", "cost-centre", "accelplane:platform", "accelplane:environment")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    tags = resource.tags()
    missing = [key for key in REQUIRED_TAGS if not as_str(tags.get(key))]
    if missing:
        yield f"missing required tags: {', '.join(missing)}"


RULE = Rule(
    id="AP-TAG-001",
    name="required-tags",
    description="Checks whether taggable AWS resources carry owner, cost-centre, accelplane:platform and "
    "accelplane:environment tags.",
    family=Family.hygiene,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Pass the platform's resource_tags to the resource.",
    resource_types=t.TAGGABLE,
    check=check,
    categories=("cost", "ownership"),
)
