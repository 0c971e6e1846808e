"""AP-TAG-002: in prod, stateful resources (buckets, keys, secrets) are `protect`ed from deletion.

A key scheduled for deletion takes every object encrypted with it; a deleted bucket takes the
checkpoints. `protect` makes `pulumi destroy` and a replacing change stop and ask.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules.cloud_rules import stateful_types
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

# Each installed cloud names its stateful resources (buckets, keys, secrets, volumes, databases).
STATEFUL = stateful_types()


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment == "prod" and not resource.protect:
        yield "stateful resource in prod is not protected (protect=True)"


RULE = Rule(
    id="AP-TAG-002",
    name="prod-stateful-protected",
    description="Checks whether buckets, KMS keys and secrets in a prod stack have protect set.",
    family=Family.hygiene,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Create the resource with ResourceOptions(protect=True) in prod.",
    resource_types=STATEFUL,
    check=check,
    categories=("resilience",),
)
