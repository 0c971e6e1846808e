"""The estimate of the graph a rule judges, built once per graph (accelplane.cost.estimate)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelplane.rules.graph import ReferenceGraph

if TYPE_CHECKING:
    from accelplane.cost.estimate import Estimate


def _build(graph: ReferenceGraph, cloud: str) -> Estimate | None:
    # Start-up time: the price tables and their models load only when a graph declares a budget.
    from accelplane.cost.cloud_pricing import builtin_table
    from accelplane.cost.estimate import estimate_plan, plan_region

    document = {"resources": [{"type": r.type, "urn": r.urn, "id": r.id, "inputs": r.props, "outputs": r.outputs}
                              for r in graph.resources]}
    region = plan_region(document["resources"], cloud)
    if region is None:
        return None
    return estimate_plan(document, cloud, region, builtin_table(cloud))


def graph_estimate(graph: ReferenceGraph, cloud: str) -> Estimate | None:
    """None when the graph says no region (nothing to price against)."""
    return graph.memo(f"cost-estimate-{cloud}", lambda g: _build(g, cloud))
