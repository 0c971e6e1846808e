"""AP-TAG-003: CloudWatch log groups have a retention period (the default keeps logs, and bills, forever)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_int


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    days = as_int(resource.get("retentionInDays"))
    if not days:
        yield "log group keeps events forever (no retentionInDays)"


RULE = Rule(
    id="AP-TAG-003",
    name="log-group-retention",
    description="Checks whether CloudWatch log groups set a retention period.",
    family=Family.hygiene,
    severity=Severity.low,
    enforcement=Enforcement.advisory,
    remediation="Set retention_in_days (e.g. 90).",
    resource_types=frozenset({t.LOG_GROUP}),
    check=check,
    categories=("cost",),
)
