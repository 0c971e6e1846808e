"""What protects a GKE inference endpoint, as the resilience rules read it from a graph.

A GKE backend Service is protected by the Cloud Armor policy its GCPBackendPolicy names
(`spec.default.securityPolicy`, the policy's name); a rate limit is a `throttle` or `rate_based_ban`
rule, only counting when it is a `preview` rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.view import Resource, as_list, as_str, get

RATE_ACTIONS = frozenset({"throttle", "rate_based_ban"})


def armor_policy(graph: ReferenceGraph, backend_policy: Resource) -> Resource | None:
    """The Cloud Armor policy a GCPBackendPolicy names: by its name (input, output, or the last segment
    of its id, as a CrossGuard stack request carries only inputs and ids), else the one policy the
    GCPBackendPolicy's `spec` was computed from (a preview, where the name is not known yet)."""
    name = as_str(backend_policy.get("spec", "default", "securityPolicy"))
    if name:
        for policy in graph.of_type(t.GCP_SECURITY_POLICY):
            if name in (as_str(policy.get("name")), as_str(policy.outputs.get("name")),
                        as_str(policy.id).rsplit("/", 1)[-1]):
                return policy
    found = graph.ref(backend_policy, "spec", t.GCP_SECURITY_POLICY)
    return found[0] if len(found) == 1 else None


def backend_armor(graph: ReferenceGraph) -> dict[tuple[str, str], Resource | None]:
    """(namespace, Service name) -> the Cloud Armor policy its GCPBackendPolicy names (None: none found)."""
    found: dict[tuple[str, str], Resource | None] = {}
    for policy in graph.of_type(t.GKE_BACKEND_POLICY):
        if as_str(policy.get("spec", "targetRef", "kind")) != "Service":
            continue
        key = (as_str(policy.get("metadata", "namespace")) or "default",
               as_str(policy.get("spec", "targetRef", "name")))
        found[key] = found.get(key) or armor_policy(graph, policy)
    return found


def armor_rate_rules(policy: Resource) -> list[Mapping[str, Any]]:
    return [rule for rule in as_list(policy.get("rules"))
            if isinstance(rule, Mapping) and as_str(get(rule, "action")) in RATE_ACTIONS]
