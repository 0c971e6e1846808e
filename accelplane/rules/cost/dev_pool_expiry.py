"""AP-COST-003: a development or experiment accelerator pool has an owner, an expiry that has not
passed, and can scale to zero.

A pool is a development pool when its stack's environment is dev, or when it carries an expiry
(`expiry:` in the declaration, node labels `accelplane.io/owner` and `accelplane.io/expires`). The
expiry is judged at `--as-of` (default today), so example stacks and tests do not break on a date.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from accelplane.node_labels import POOL_LABEL
from accelplane.rules.cloud_rules import node_pool_shapes, node_pool_types
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.matrix.labels import node_labels
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource

OWNER = "accelplane.io/owner"
EXPIRES = "accelplane.io/expires"
ACCELERATOR = "accelplane.io/accelerator"
POOL_TYPES = node_pool_types()


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    labels, minimum = node_labels(resource), node_pool_shapes()[resource.type].minimum_nodes(resource)
    accelerator = str(labels.get(ACCELERATOR) or "none")
    expires = labels.get(EXPIRES)
    if accelerator == "none" or (graph.environment != "dev" and not expires):
        return
    pool = labels.get(POOL_LABEL, resource.name)
    if not labels.get(OWNER) or not expires:
        yield f"development pool {pool} needs an owner and an expiry (expiry: {{owner, expires}})"
    if expires:
        try:
            end = date.fromisoformat(str(expires))
        except ValueError:
            yield f"pool {pool}: {EXPIRES} {expires!r} is not a date (YYYY-MM-DD)"
        else:
            today = graph.as_of or date.today()
            if end < today:
                yield f"pool {pool} expired on {end.isoformat()} (judged at {today.isoformat()}): delete it or " \
                      "extend expiry.expires"
    if minimum not in (None, 0):
        yield f"development pool {pool} keeps {minimum} node(s): it must be able to scale to zero (min 0)"


RULE = Rule(
    id="AP-COST-003",
    name="dev-pool-expiry",
    description="Checks whether a development or experiment accelerator pool carries an owner and an expiry "
    "that has not passed, and can scale to zero.",
    family=Family.cost,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Declare expiry: {owner, expires} on the pool and scaling.min 0; delete the pool once it expires.",
    resource_types=POOL_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("cost", "ownership"),
)
