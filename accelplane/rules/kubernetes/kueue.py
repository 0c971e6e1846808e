"""How much a Kueue ClusterQueue can admit of one resource on one flavor, as Kueue's scheduler counts it.

A workload names a LocalQueue (label `kueue.x-k8s.io/queue-name`), which feeds one ClusterQueue. The
queue admits a workload only when, for every resource it requests, a flavor of the resource group
covering it has room: `nominalQuota`, plus up to `borrowingLimit` of what the other queues of its
cohort leave unused (no `borrowingLimit` in a cohort: all of it; no cohort: nothing to borrow). A
requested resource no resource group covers leaves the workload pending for ever ("resource X
unavailable in ClusterQueue") unless the Kueue configuration's `resources.excludeResourcePrefixes`
drops it (https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/,
https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta1/#Resources). A flavor serves the pods
whose node selector agrees with its `nodeLabels`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import yaml

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import namespace, object_name
from accelplane.rules.kubernetes.quantity import parse_quantity
from accelplane.rules.view import Resource, as_list, as_str, get, mapping


@dataclass(frozen=True)
class FlavorRoom:
    """What one ClusterQueue may use of one resource on one flavor."""

    flavor: str
    nominal: Decimal
    borrowable: Decimal  # after the cohort's cap

    @property
    def most(self) -> Decimal:
        return self.nominal + self.borrowable


@dataclass
class KueueView:
    local_queues: dict[tuple[str, str], str] = field(default_factory=dict)  # (namespace, name) -> ClusterQueue
    cluster_queues: dict[str, Resource] = field(default_factory=dict)
    flavor_labels: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    cohort_nominal: dict[tuple[str, str, str], Decimal] = field(default_factory=dict)  # (cohort, flavor, res)
    excluded_prefixes: tuple[str, ...] | None = None  # None: the Kueue configuration is not in the graph

    @property
    def present(self) -> bool:
        return bool(self.local_queues or self.cluster_queues)

    def covered(self, queue: Resource) -> set[str]:
        return {r for group in _groups(queue) for r in as_list(get(group, "coveredResources")) if isinstance(r, str)}

    def excluded(self, resource: str) -> bool:
        return any(resource.startswith(prefix) for prefix in self.excluded_prefixes or ())

    def rooms(self, queue: Resource, resource: str, node_selector: Mapping[str, str]) -> list[FlavorRoom]:
        """Each flavor of `queue` that covers `resource` and may place pods with `node_selector`."""
        cohort = _cohort(queue)
        rooms = []
        for group in _groups(queue):
            if resource not in as_list(get(group, "coveredResources")):
                continue
            for flavor in as_list(get(group, "flavors")):
                name = as_str(get(flavor, "name"))
                labels = self.flavor_labels.get(name, {})
                if any(key in node_selector and node_selector[key] != str(value) for key, value in labels.items()):
                    continue
                quota = next((q for q in as_list(get(flavor, "resources")) if get(q, "name") == resource), None)
                if quota is None:
                    continue
                rooms.append(self._room(name, quota, resource, cohort))
        return rooms

    def _room(self, flavor: str, quota: Mapping[str, Any], resource: str, cohort: str | None) -> FlavorRoom:
        nominal = parse_quantity(get(quota, "nominalQuota")) or Decimal(0)
        if cohort is None:
            return FlavorRoom(flavor, nominal, Decimal(0))
        others = self.cohort_nominal.get((cohort, flavor, resource), nominal) - nominal
        limit = parse_quantity(get(quota, "borrowingLimit"))
        return FlavorRoom(flavor, nominal, others if limit is None else min(limit, others))


def _groups(queue: Resource) -> list[Any]:
    return as_list(queue.get("spec", "resourceGroups"))


def _cohort(queue: Resource) -> str | None:
    # v1beta1 `cohort`, v1beta2 `cohortName`
    value = queue.get("spec", "cohortName") or queue.get("spec", "cohort")
    return value if isinstance(value, str) and value else None


def _excluded_prefixes(graph: ReferenceGraph) -> tuple[str, ...] | None:
    """`resources.excludeResourcePrefixes` of the Kueue Helm release's manager configuration."""
    for release in graph.of_type(t.HELM_RELEASE):
        if "kueue" not in as_str(release.get("chart")):
            continue
        text = release.get("values", "managerConfig", "controllerManagerConfigYaml")
        try:
            config = yaml.safe_load(text) if isinstance(text, str) else None
        except yaml.YAMLError:
            config = None
        prefixes = as_list(get(config, "resources", "excludeResourcePrefixes")) if isinstance(config, Mapping) else []
        return tuple(p for p in prefixes if isinstance(p, str))
    return None


def kueue_view(graph: ReferenceGraph) -> KueueView:
    def build(g: ReferenceGraph) -> KueueView:
        view = KueueView(excluded_prefixes=_excluded_prefixes(g))
        for local in g.of_type(*t.KUEUE_LOCAL_QUEUES):
            view.local_queues[(namespace(local), object_name(local))] = as_str(local.get("spec", "clusterQueue"))
        for flavor in g.of_type(*t.KUEUE_RESOURCE_FLAVORS):
            view.flavor_labels[object_name(flavor)] = mapping(flavor.get("spec", "nodeLabels"))
        totals: dict[tuple[str, str, str], Decimal] = defaultdict(Decimal)
        for queue in g.of_type(*t.KUEUE_CLUSTER_QUEUES):
            view.cluster_queues[object_name(queue)] = queue
            cohort = _cohort(queue)
            for group in _groups(queue):
                for flavor in as_list(get(group, "flavors")):
                    for quota in as_list(get(flavor, "resources")):
                        amount = parse_quantity(get(quota, "nominalQuota")) or Decimal(0)
                        if cohort is not None:
                            totals[(cohort, as_str(get(flavor, "name")), as_str(get(quota, "name")))] += amount
        view.cohort_nominal = dict(totals)
        return view

    return graph.memo("kueue-view", build)
