"""`CloudRules`: the policy rules a cloud ships, and how the cloud-neutral rules read that cloud's
resources; found through the `accelplane.rules` entry-point group, one per cloud.

A cloud's rules judge its own resources (S3 buckets, GKE clusters, AWS IAM documents) and live in its
folder (`accelplane/clouds/<cloud>/rules/<topic>/`). The neutral rules here judge what every cloud
has — node pools, stateful stores, Kubernetes objects — and ask each installed cloud which of its
resource types those are and where they keep what the rule reads, so no neutral rule names a cloud.

`check --state` judges a state file without knowing which cloud wrote it, so every installed cloud's
rules are registered, as before the move: a rule looks only at its own resource types.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from accelplane.cloud_support import installed_facets

if TYPE_CHECKING:  # annotations only: the rule and the resource view import nothing of this module
    from accelplane.rules.rule import Rule
    from accelplane.rules.view import Resource

ENTRY_POINT_GROUP = "accelplane.rules"


@dataclass(frozen=True)
class NodePoolShape:
    """One cloud resource type that is a node pool, as the neutral rules read it."""

    type: str  # the Pulumi type token
    labels_at: tuple[str, ...]  # where the nodes' Kubernetes labels sit in its inputs
    instance_type: Callable[[Resource], str]  # the machine (instance) type its nodes run
    minimum_nodes: Callable[[Resource], int | None]  # the floor it scales down to; None: fixed in size
    # Inputs the provider updates in place by recreating every node, one surge at a time (a rolling
    # replacement): `accelplane diff` says so instead of a harmless-looking `~`.
    recreating_inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class CloudRules:
    """What one cloud adds to the rules (the entry point's object)."""

    cloud: str
    node_pools: tuple[NodePoolShape, ...]
    stateful_types: frozenset[str]  # resources whose deletion takes data with it (prod must protect them)
    # The cloud's own rules, imported on first call: the neutral rules read the shapes above while they
    # are imported themselves, and a cloud's rule modules may import neutral helpers.
    load_rules: Callable[[], Iterable[Rule]]
    # What a reviewer asks first of a new resource of one of its types, beyond what can never change
    # (`accelplane diff` shows these inputs of a created resource): type token -> dotted input paths.
    review_inputs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The inputs its provider cannot change in place, per type token (a JSON table in the cloud's folder,
    # read from the provider's source by tools/force_new_from_provider.py): what `accelplane diff` reads
    # to tell a replacement from an update.
    force_new_table: Path | None = None


@cache
def installed() -> tuple[CloudRules, ...]:
    return installed_facets(ENTRY_POINT_GROUP, CloudRules)


@cache
def node_pool_shapes() -> Mapping[str, NodePoolShape]:
    """Every installed cloud's node-pool resource types, by type token."""
    return {shape.type: shape for facet in installed() for shape in facet.node_pools}


@cache
def review_inputs() -> Mapping[str, tuple[str, ...]]:
    """Every installed cloud's review inputs, by type token."""
    return {token: paths for facet in installed() for token, paths in facet.review_inputs.items()}


def force_new_tables() -> tuple[Path, ...]:
    """Every installed cloud's table of the inputs its provider cannot change in place."""
    return tuple(facet.force_new_table for facet in installed() if facet.force_new_table is not None)


def node_pool_types() -> frozenset[str]:
    return frozenset(node_pool_shapes())


def stateful_types() -> frozenset[str]:
    return frozenset().union(*(facet.stateful_types for facet in installed()))


def cloud_rules() -> list[Rule]:
    """Every installed cloud's own rules."""
    return [rule for facet in installed() for rule in facet.load_rules()]
