"""AP-K8S-008: the shipped prod stack asked 4 x 8 GPUs of a queue admitting 24, and check passed it.

Judged on the offline graph of real stack files and on small graphs of the objects Kueue and the API
server read (ResourceQuota, LimitRange, HorizontalPodAutoscaler, LocalQueue, ClusterQueue).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from accelplane.config.loader import load_stack_text
from accelplane.engine.graph import from_offline_graph
from accelplane.program import offline_graph
from accelplane.rules import types as t
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes import k8s_workload_fits_quota
from accelplane.rules.kubernetes.quantity import parse_quantity
from tests.rules.cases import deployment, gpu_container, gpu_quota, res
from tests.support.stack_files import stack_text

RULE = k8s_workload_fits_quota.RULE


def _messages(resources) -> list[str]:
    return sorted(f.message for f in run_rule(RULE, ReferenceGraph(list(resources)))[0])


def _stack_messages(text: str, stack: str = "prod") -> list[str]:
    graph = offline_graph(load_stack_text(text, path=f"Pulumi.{stack}.yaml", stack=stack))
    return _messages(from_offline_graph(graph))


@pytest.mark.parametrize("stack", ["dev", "prod", "tpu-dev", "tpu-prod", "lab"])
def test_the_shipped_stacks_fit_their_quotas_and_queues(stack: str) -> None:
    assert _stack_messages(stack_text(stack), stack) == []


def test_prods_templates_as_shipped_before_did_not_fit() -> None:
    before = stack_text("prod").replace("          nodes: 3\n", "", 1).replace("          nodes: 2\n", "", 1)
    assert _stack_messages(before) == [
        "its JobSet asks 32 nvidia.com/gpu (4 pods) but ClusterQueue foundation-models admits at most 24 on flavor "
        "train-h100 (16 nominal + 8 borrowable)",
        "its JobSet asks 32 nvidia.com/gpu (4 pods) but ResourceQuota accelerators in namespace training allows 24",
        "its JobSet asks 64 aws.amazon.com/neuron (4 pods) but ClusterQueue foundation-models admits at most 40 on "
        "flavor train-trn1 (32 nominal + 8 borrowable)",
        "its JobSet asks 64 aws.amazon.com/neuron (4 pods) but ResourceQuota accelerators in namespace training "
        "allows 40",
    ]


def test_a_jobset_requesting_what_no_queue_covers_stays_pending() -> None:
    """Every pod requests CPU and memory (the LimitRange defaults them); Kueue must exclude them."""
    import accelplane.k8s.batch_addons as addons

    graph = from_offline_graph(offline_graph(load_stack_text(stack_text("dev"), path="Pulumi.dev.yaml", stack="dev")))
    stripped = []
    for resource in graph:
        if resource.type == t.HELM_RELEASE and "kueue" in str(resource.props.get("chart")):
            values = {"managerConfig": {"controllerManagerConfigYaml": addons.kueue_config().split("resources:")[0]}}
            resource = res(resource.type, resource.name, {**resource.props, "values": values})
        stripped.append(resource)
    assert _messages(stripped) == [
        "its JobSet requests cpu, which ClusterQueue research does not cover and Kueue does not exclude: it stays "
        "pending ('unavailable in ClusterQueue')",
        "its JobSet requests memory, which ClusterQueue research does not cover and Kueue does not exclude: it stays "
        "pending ('unavailable in ClusterQueue')",
    ]


def _queue(name: str, nominal: int, borrowing: int | None, cohort: str | None = "all") -> object:
    quota = {"name": "nvidia.com/gpu", "nominalQuota": nominal}
    if borrowing is not None:
        quota["borrowingLimit"] = borrowing
    spec = {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                                "flavors": [{"name": "h100", "resources": [quota]}]}]}
    if cohort:
        spec["cohort"] = cohort
    return res(t.KUEUE_CLUSTER_QUEUES[0], f"cq-{name}", {"metadata": {"name": name}, "spec": spec})


def _job(name: str, gpus: int, queue: str = "team-a-queue", selector: str = "h100") -> object:
    return deployment(name, gpu_container(gpus), kind=t.K8S_JOB, labels={"kueue.x-k8s.io/queue-name": queue},
                      nodeSelector={"accelplane.io/pool": selector})


def _parallel(name: str, pods: int, gpus: int, queue: str = "team-a-queue") -> object:
    job = _job(name, gpus, queue)
    return res(job.type, job.name, {**job.props, "spec": {**job.props["spec"], "parallelism": pods}})


LOCAL = res("kubernetes:kueue.x-k8s.io/v1beta1:LocalQueue", "lq", {
    "metadata": {"name": "team-a-queue", "namespace": "training"}, "spec": {"clusterQueue": "team-a"}})
FLAVOR = res("kubernetes:kueue.x-k8s.io/v1beta1:ResourceFlavor", "flavor", {
    "metadata": {"name": "h100"}, "spec": {"nodeLabels": {"accelplane.io/pool": "h100"}}})


def test_borrowing_is_capped_by_what_the_cohort_holds() -> None:
    # team-a may borrow 16, but the only other queue of the cohort holds 4: at most 8 + 4.
    graph = [LOCAL, FLAVOR, _queue("team-a", 8, 16), _queue("team-b", 4, 0), _parallel("train", 2, 8)]
    assert _messages(graph) == ["asks 16 nvidia.com/gpu (parallelism 2) but ClusterQueue team-a admits at most 12 on "
                                "flavor h100 (8 nominal + 4 borrowable)"]
    # Without a borrowing limit, everything the cohort leaves unused: 8 + 12 = 20 covers 16.
    roomy = [LOCAL, FLAVOR, _queue("team-a", 8, None), _queue("team-b", 12, 0), _parallel("train", 2, 8)]
    assert _messages(roomy) == []
    # Without a cohort nothing is borrowed.
    alone = [LOCAL, FLAVOR, _queue("team-a", 8, 16, cohort=None), _parallel("train", 2, 8)]
    assert "(8 nominal + 0 borrowable)" in _messages(alone)[0]


def test_a_flavor_for_other_nodes_does_not_serve_the_job() -> None:
    graph = [LOCAL, FLAVOR, _queue("team-a", 64, 0), _job("train", 8, selector="l4")]
    assert _messages(graph) == ["no flavor of ClusterQueue team-a offers nvidia.com/gpu on nodes matching "
                                "{'accelplane.io/pool': 'l4'}"]


def test_a_queue_name_without_its_local_queue_is_named() -> None:
    graph = [LOCAL, FLAVOR, _queue("team-a", 64, 0), _job("train", 8, queue="typo-queue")]
    assert _messages(graph) == ["names LocalQueue typo-queue in namespace training, which feeds no declared "
                                "ClusterQueue"]


def test_an_autoscalers_maximum_counts_against_the_namespace_quota() -> None:
    hpa = res(t.K8S_HPA, "serve-hpa", {"metadata": {"name": "serve", "namespace": "training"}, "spec": {
        "maxReplicas": 6, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "serve"}}})
    graph = [gpu_quota("training", 4), deployment("serve", gpu_container(1), replicas=2), hpa]
    assert _messages(graph) == ["asks 6 nvidia.com/gpu (HPA max 6 pods) but ResourceQuota accelerators in namespace "
                                "training allows 4"]


def test_limit_range_defaults_and_init_containers_count_as_kubernetes_counts_them() -> None:
    limit_range = res(t.K8S_LIMIT_RANGE, "defaults", {"metadata": {"name": "d", "namespace": "training"}, "spec": {
        "limits": [{"type": "Container", "defaultRequest": {"cpu": "500m"}}]}})
    quota = res(t.K8S_RESOURCE_QUOTA, "cpu-quota", {"metadata": {"name": "compute", "namespace": "training"},
                                                    "spec": {"hard": {"cpu": "1"}}})
    init = {"name": "warm", "image": "x", "resources": {"requests": {"cpu": "1500m"}}}
    two = deployment("serve", gpu_container(0), gpu_container(0), replicas=1)  # 2 x 500m defaulted = 1 CPU: fits
    assert _messages([limit_range, quota, two]) == []
    with_init = res(two.type, two.name, {**two.props, "spec": {**two.props["spec"], "template": {
        **two.props["spec"]["template"], "spec": {**two.props["spec"]["template"]["spec"], "initContainers": [init]}}}})
    assert _messages([limit_range, quota, with_init]) == [
        "asks 1.5 cpu (1 replica) but ResourceQuota compute in namespace training allows 1"]


def test_a_scoped_quota_is_not_judged() -> None:
    scoped = gpu_quota("training", 1)
    scoped = res(scoped.type, scoped.name, {**scoped.props, "spec": {**scoped.props["spec"], "scopes": ["BestEffort"]}})
    assert _messages([scoped, deployment("serve", gpu_container(4), replicas=2)]) == []


@pytest.mark.parametrize(("text", "value"), [("500m", "0.5"), ("4Gi", str(4 * 2**30)), ("1e3", "1000"), (8, "8"),
                                             ("1.5", "1.5"), ("2k", "2000")])
def test_quantities_read_as_the_api_writes_them(text: object, value: str) -> None:
    assert parse_quantity(text) == Decimal(value)


@pytest.mark.parametrize("text", ["4 GiB", "lots", "", None, True])
def test_what_is_no_quantity_reads_as_none(text: object) -> None:
    assert parse_quantity(text) is None
