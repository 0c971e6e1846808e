"""What a Kubernetes workload asks of its namespace's quota and its queue at its largest.

A pod's request for a resource is what the API server and Kueue count: the sum of its containers'
requests, or the largest init container's when that is more (Kubernetes' effective request,
https://kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers);
a container without a request takes its limit, else the namespace LimitRange's `defaultRequest`,
else its `default` (https://kubernetes.io/docs/concepts/policy/limit-range/). A workload's pods at
their largest: a Deployment's (ReplicaSet's, StatefulSet's) replicas, or the maximum of the
HorizontalPodAutoscaler that scales it; a Job's parallelism; a JobSet's replicated jobs' replicas x
parallelism. A training template is a JobSet kept as YAML in a ConfigMap labelled
`accelplane.io/template: jobset` (key `jobset.yaml`), which is what a user creates from it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import yaml

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import namespace, object_name
from accelplane.rules.kubernetes.quantity import parse_quantity
from accelplane.rules.view import Resource, as_int, as_list, as_str, get, mapping

TEMPLATE_LABEL = "accelplane.io/template"
JOBSET_TEMPLATE_KEY = "jobset.yaml"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
SCALED_TYPES = frozenset({t.K8S_DEPLOYMENT, t.K8S_STATEFUL_SET, t.K8S_REPLICA_SET})


@dataclass(frozen=True)
class PodSet:
    """Pods alike: how many at most, what each requests, where they may run."""

    count: int
    requests: Mapping[str, Decimal]
    node_selector: Mapping[str, str]


@dataclass(frozen=True)
class Demand:
    """A workload's pods at their largest, and the Kueue queue it names (None: not queued)."""

    namespace: str
    pod_sets: tuple[PodSet, ...]
    queue: str | None
    how: str  # "4 pods", "HPA max 12 pods": how the count was reached, for the message

    def total(self, resource: str) -> Decimal:
        return sum((s.count * s.requests.get(resource, Decimal(0)) for s in self.pod_sets), Decimal(0))

    def resources(self) -> set[str]:
        return {name for s in self.pod_sets for name, amount in s.requests.items() if amount > 0}


def _limit_range_defaults(graph: ReferenceGraph) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Namespace -> (defaultRequest, default) of its Container LimitRange items."""

    def build(g: ReferenceGraph) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        out: dict[str, tuple[dict[str, Any], dict[str, Any]]] = defaultdict(lambda: ({}, {}))
        for limit_range in g.of_type(t.K8S_LIMIT_RANGE):
            requests, limits = out[namespace(limit_range)]
            for item in as_list(limit_range.get("spec", "limits")):
                if isinstance(item, Mapping) and get(item, "type") == "Container":
                    requests.update(mapping(get(item, "defaultRequest")))
                    limits.update(mapping(get(item, "default")))
        return dict(out)

    return graph.memo("limit-range-defaults", build)


Defaults = tuple[dict[str, Any], dict[str, Any]]  # a namespace's LimitRange (defaultRequest, default)


def _container_requests(container: Mapping[str, Any], defaults: Defaults) -> dict[str, Decimal]:
    requests = mapping(get(container, "resources", "requests"))
    limits = mapping(get(container, "resources", "limits"))
    default_requests, default_limits = defaults
    out: dict[str, Decimal] = {}
    for name in set(requests) | set(limits) | set(default_requests) | set(default_limits):
        for source in (requests, limits, default_requests, default_limits):
            amount = parse_quantity(source.get(name))
            if amount is not None:
                out[name] = amount
                break
    return out


def pod_requests(spec: Mapping[str, Any], defaults: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Decimal]:
    """The pod's effective request per resource (sidecar init containers, restartPolicy Always, run
    beside the containers and add to them)."""
    running: dict[str, Decimal] = defaultdict(Decimal)
    init_peak: dict[str, Decimal] = defaultdict(Decimal)
    for container in as_list(get(spec, "containers")):
        for name, amount in _container_requests(mapping(container), defaults).items():
            running[name] += amount
    for container in as_list(get(spec, "initContainers")):
        for name, amount in _container_requests(mapping(container), defaults).items():
            if get(container, "restartPolicy") == "Always":
                running[name] += amount
            else:
                init_peak[name] = max(init_peak[name], amount)
    return {name: max(running[name], init_peak[name]) for name in set(running) | set(init_peak)}


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _hpa_maximum(graph: ReferenceGraph, resource: Resource) -> int | None:
    def build(g: ReferenceGraph) -> dict[tuple[str, str, str], int]:
        index = {}
        for hpa in g.of_type(t.K8S_HPA, t.K8S_HPA_V1):
            target = mapping(hpa.get("spec", "scaleTargetRef"))
            maximum = as_int(hpa.get("spec", "maxReplicas"))
            if maximum is not None:
                index[(namespace(hpa), as_str(get(target, "kind")), as_str(get(target, "name")))] = maximum
        return index

    kind = resource.type.rsplit(":", 1)[-1]
    return graph.memo("hpa-maximum", build).get((namespace(resource), kind, object_name(resource)))


def _pod_set(spec: Mapping[str, Any], count: int, ns: str, graph: ReferenceGraph) -> PodSet:
    defaults = _limit_range_defaults(graph).get(ns, ({}, {}))
    selector = {k: str(v) for k, v in mapping(get(spec, "nodeSelector")).items()}
    return PodSet(count, pod_requests(spec, defaults), selector)


def workload_demand(resource: Resource, graph: ReferenceGraph) -> Demand | None:
    """A Pod, Deployment, StatefulSet, ReplicaSet or Job at its largest; None for other kinds."""
    ns = namespace(resource)
    path = t.K8S_POD_SPEC_PATHS.get(resource.type)
    if path is None or resource.type in (t.K8S_DAEMON_SET, t.K8S_CRON_JOB):
        return None  # a DaemonSet's pods follow the nodes; a CronJob's runs are counted as its Jobs
    spec = mapping(resource.get(*path))
    if resource.type in SCALED_TYPES:
        maximum = _hpa_maximum(graph, resource)
        replicas = as_int(resource.get("spec", "replicas"))
        count = maximum if maximum is not None else 1 if replicas is None else replicas
        how = f"HPA max {_plural(count, 'pod')}" if maximum is not None else _plural(count, "replica")
    elif resource.type == t.K8S_JOB:
        count = as_int(resource.get("spec", "parallelism")) or 1
        how = f"parallelism {count}"
    else:
        count, how = 1, "1 pod"
    queue = mapping(resource.get("metadata", "labels")).get(QUEUE_LABEL)
    return Demand(ns, (_pod_set(spec, count, ns, graph),), queue if isinstance(queue, str) else None, how)


def jobset_demand(document: Mapping[str, Any], graph: ReferenceGraph, default_namespace: str) -> Demand:
    """A JobSet's pods: every replicated job's replicas x its job's parallelism."""
    ns = as_str(get(document, "metadata", "namespace"), default_namespace)
    sets, parts = [], []
    for replicated in as_list(get(document, "spec", "replicatedJobs")):
        replicas = as_int(get(replicated, "replicas")) or 1
        job = mapping(get(replicated, "template", "spec"))
        parallelism = as_int(get(job, "parallelism")) or 1
        sets.append(_pod_set(mapping(get(job, "template", "spec")), replicas * parallelism, ns, graph))
        parts.append(f"{replicas} x {parallelism}" if replicas > 1 else str(parallelism))
    queue = mapping(get(document, "metadata", "labels")).get(QUEUE_LABEL)
    total = sum(s.count for s in sets)
    how = _plural(total, "pod") if len(parts) == 1 and "x" not in parts[0] else f"{' + '.join(parts)} pods"
    return Demand(ns, tuple(sets), queue if isinstance(queue, str) else None, how)


def template_documents(resource: Resource) -> Iterator[Mapping[str, Any]]:
    """The JobSet a training-template ConfigMap holds (nothing when it holds none, or it is unknown)."""
    if mapping(resource.get("metadata", "labels")).get(TEMPLATE_LABEL) != "jobset":
        return
    text = resource.get("data", JOBSET_TEMPLATE_KEY)
    if not isinstance(text, str):
        return
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return
    if isinstance(document, Mapping) and document.get("kind") == "JobSet":
        yield document
