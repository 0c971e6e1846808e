"""The node configurations a GKE resource creates nodes with, for the rules judging nodes.

A `gcp:container/nodePool:NodePool` has one `nodeConfig`. A `gcp:container/cluster:Cluster` creates
nodes too: the pools declared inline in `nodePools[]`, or else the default node pool from its own
`nodeConfig`, unless `removeDefaultNodePool` deletes it after creation (the usual pattern, with
separately managed pools) or the cluster is Autopilot (GKE manages the nodes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get, mapping


def node_configs(resource: Resource) -> list[tuple[str, Mapping[str, Any]]]:
    """(where, nodeConfig): `where` is "" for a node pool resource, else which pool of the cluster."""
    if resource.type == t.GKE_NODE_POOL:
        return [("", mapping(resource.get("nodeConfig")))]
    if as_bool(resource.get("enableAutopilot")):
        return []
    inline = as_list(resource.get("nodePools"))
    if inline:
        return [(f"node pool {as_str(get(pool, 'name')) or index}", mapping(get(pool, "nodeConfig")))
                for index, pool in enumerate(inline)]
    if as_bool(resource.get("removeDefaultNodePool")):
        return []
    return [("default node pool", mapping(resource.get("nodeConfig")))]


def at(where: str, text: str) -> str:
    return f"{where}: {text}" if where else text


NODE_TYPES = frozenset({t.GKE_CLUSTER, t.GKE_NODE_POOL})
