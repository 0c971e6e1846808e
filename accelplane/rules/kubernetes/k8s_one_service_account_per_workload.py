"""AP-K8S-007: each workload runs under its own service account.

Per-workload IAM roles trust one service account each (AP-IAM-006); two workloads sharing one, or
a workload on `default`, share an IAM role and everything it can read. The backends of one
inference service (children of one `accelplane:k8s:InferenceService` component) are one workload
serving one model on several accelerator types: they share its account by design.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import namespace, object_name, pod_spec
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str, get


def _account(resource: Resource) -> str:
    spec = pod_spec(resource)
    return as_str(get(spec, "serviceAccountName")) or as_str(get(spec, "serviceAccount")) or "default"


def _by_account(graph: ReferenceGraph) -> dict[tuple[str, str], list[Resource]]:
    index: dict[tuple[str, str], list[Resource]] = defaultdict(list)
    for workload in graph.of_type(*t.K8S_WORKLOAD_TYPES):
        index[(namespace(workload), _account(workload))].append(workload)
    return index


def _same_service(one: Resource, other: Resource, graph: ReferenceGraph) -> bool:
    parent = graph.get(one.parent)
    return parent is not None and parent.type == t.INFERENCE_SERVICE and other.parent == parent.urn


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    account = _account(resource)
    if account == "default":
        yield "workload runs as the namespace's default service account"
        return
    ns = namespace(resource)
    others = sorted(object_name(o) for o in graph.memo("workloads-by-account", _by_account).get((ns, account), [])
                    if o.urn != resource.urn and not _same_service(resource, o, graph))
    if others:
        yield f"service account {ns}/{account} is shared with {', '.join(others)}"


RULE = Rule(
    id="AP-K8S-007",
    name="k8s-one-service-account-per-workload",
    description="Checks whether each workload has its own, non-default service account.",
    family=Family.kubernetes,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Create one ServiceAccount per workload and set serviceAccountName.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    scope=Scope.stack,
    categories=("kubernetes", "least-privilege"),
)
