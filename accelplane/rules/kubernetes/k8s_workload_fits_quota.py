"""AP-K8S-008: every workload fits its namespace's ResourceQuota, and every queued job its Kueue queue.

A training template asking 4 pods x 8 GPUs of a queue that admits 24 is a job that never starts:
Kueue keeps it pending, with nothing in the preview to say so. The same for a Deployment whose
autoscaler may reach more pods than the namespace's ResourceQuota lets it create: the API server
refuses the pods past the quota. Each workload is judged alone at its largest (see `demand`), so a
finding means it cannot run even on an empty cluster. A ResourceQuota with `scopes` or a
`scopeSelector` applies only to some pods and is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import Decimal

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.demand import Demand, jobset_demand, template_documents, workload_demand
from accelplane.rules.kubernetes.kueue import kueue_view
from accelplane.rules.kubernetes.pods import ACCELERATOR_RESOURCES, namespace, object_name
from accelplane.rules.kubernetes.quantity import parse_quantity, show
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, mapping

# Compute resources a quota may name bare as well as `requests.<name>`
# (https://kubernetes.io/docs/concepts/policy/resource-quotas/#compute-resource-quota).
_BARE_REQUESTS = ("cpu", "memory", "ephemeral-storage")


def _hard_requests(graph: ReferenceGraph, ns: str) -> list[tuple[str, dict[str, Decimal]]]:
    def build(g: ReferenceGraph) -> dict[str, list[tuple[str, dict[str, Decimal]]]]:
        index: dict[str, list[tuple[str, dict[str, Decimal]]]] = {}
        for quota in g.of_type(t.K8S_RESOURCE_QUOTA):
            if quota.get("spec", "scopes") or quota.get("spec", "scopeSelector"):
                continue
            hard: dict[str, Decimal] = {}
            for key, value in mapping(quota.get("spec", "hard")).items():
                amount = parse_quantity(value)
                name = key.removeprefix("requests.") if key.startswith("requests.") else key
                if amount is not None and (key.startswith("requests.") or key in _BARE_REQUESTS):
                    hard[name] = min(amount, hard.get(name, amount))
            index.setdefault(namespace(quota), []).append((object_name(quota), hard))
        return index

    return graph.memo("resource-quota-hard-requests", build).get(ns, [])


def _quota_problems(demand: Demand, graph: ReferenceGraph) -> Iterator[str]:
    for quota, hard in _hard_requests(graph, demand.namespace):
        for resource in sorted(demand.resources() & set(hard)):
            asked = demand.total(resource)
            if asked > hard[resource]:
                yield (f"asks {show(asked)} {resource} ({demand.how}) but ResourceQuota {quota} in namespace "
                       f"{demand.namespace} allows {show(hard[resource])}")


def _queue_problems(demand: Demand, graph: ReferenceGraph) -> Iterator[str]:
    view = kueue_view(graph)
    if demand.queue is None or not view.present:
        return  # not queued, or Kueue's objects are managed outside this program
    cluster_queue = view.cluster_queues.get(view.local_queues.get((demand.namespace, demand.queue), ""))
    if cluster_queue is None:
        yield f"names LocalQueue {demand.queue} in namespace {demand.namespace}, which feeds no declared ClusterQueue"
        return
    name = object_name(cluster_queue)
    covered = view.covered(cluster_queue)
    for resource in sorted(demand.resources()):
        if resource not in covered:
            judged = view.excluded_prefixes is not None or resource in ACCELERATOR_RESOURCES
            if judged and not view.excluded(resource):
                yield (f"requests {resource}, which ClusterQueue {name} does not cover and Kueue does not exclude: "
                       "it stays pending ('unavailable in ClusterQueue')")
            continue
        asked = demand.total(resource)
        selector = _one_selector(demand)
        rooms = view.rooms(cluster_queue, resource, selector)
        if not rooms:
            yield f"no flavor of ClusterQueue {name} offers {resource} on nodes matching {dict(selector)}"
        elif all(asked > room.most for room in rooms):
            best = max(rooms, key=lambda room: room.most)
            yield (f"asks {show(asked)} {resource} ({demand.how}) but ClusterQueue {name} admits at most "
                   f"{show(best.most)} on flavor {best.flavor} ({show(best.nominal)} nominal + "
                   f"{show(best.borrowable)} borrowable)")


def _one_selector(demand: Demand) -> Mapping[str, str]:
    """The node labels every pod set of the workload asks for (Kueue gives a workload's pod sets
    flavors apart; the JobSets judged here ask for one pool)."""
    selectors = [set(s.node_selector.items()) for s in demand.pod_sets]
    return dict(set.intersection(*selectors)) if selectors else {}


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if resource.type == t.K8S_CONFIG_MAP:
        demands = [jobset_demand(doc, graph, namespace(resource)) for doc in template_documents(resource)]
        prefix = "its JobSet "
    elif resource.type == t.K8S_JOBSET:
        demands = [jobset_demand(resource.props, graph, namespace(resource))]
        prefix = ""
    else:
        demand = workload_demand(resource, graph)
        demands = [demand] if demand is not None else []
        prefix = ""
    for demand in demands:
        for message in (*_quota_problems(demand, graph), *_queue_problems(demand, graph)):
            yield prefix + message


RULE = Rule(
    id="AP-K8S-008",
    name="k8s-workload-fits-quota",
    description=(
        "Checks whether every workload at its largest fits its namespace's ResourceQuota, and every queued "
        "job (a training template's JobSet) its Kueue ClusterQueue: nominal quota plus what it may borrow."
    ),
    family=Family.kubernetes,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation=(
        "Declare the template's nodes so nodes x accelerators per node fits the team's quota plus borrowing_limit "
        "(or raise the team's quotas); keep an autoscaler's maximum within the namespace's quota."
    ),
    resource_types=frozenset({t.K8S_CONFIG_MAP, t.K8S_JOBSET, *t.K8S_WORKLOAD_TYPES}),
    check=check,
    scope=Scope.stack,
    categories=("kubernetes", "scheduling", "quota"),
)
