"""Per-backend Kubernetes objects of an inference service: replicas, HPA, component props, scraping."""

from __future__ import annotations

from pathlib import Path

import pulumi
import pulumi_aws
import pulumi_kubernetes
import pytest

from accelplane.config.loader import load_stack, load_stack_file
from accelplane.engine.graph import OfflineGraph, RecordedResource
from accelplane.k8s.service_props import SERVICE_TYPE, service_props
from accelplane.program import offline_graph
from tests.support.stack_files import write_variant

INF2_AT_5 = "              weight: 5\n"
INF2_SCALING = "              autoscaling: {min_replicas: 1, max_replicas: 8, target_cpu_utilization: 60}\n"
L40S_AT_95 = "              weight: 95\n"


@pytest.fixture(scope="module")
def tpu_prod(tpu_prod_graph: OfflineGraph) -> OfflineGraph:
    return tpu_prod_graph  # built once per test process (tests/conftest.py)


@pytest.fixture(params=["dev", "prod", "tpu-prod"])
def stack_graph(request: pytest.FixtureRequest, dev_graph: OfflineGraph, prod_graph: OfflineGraph,
                tpu_prod: OfflineGraph) -> tuple[str, OfflineGraph]:
    return request.param, {"dev": dev_graph, "prod": prod_graph, "tpu-prod": tpu_prod}[request.param]


def _k8s(graph: OfflineGraph, kind: str) -> dict[str, RecordedResource]:
    return {
        r.inputs["metadata"]["name"]: r
        for r in graph.resources
        if r.type.startswith("kubernetes:") and r.type.endswith(f":{kind}")
    }


def _idle_canary(tmp_path: Path) -> OfflineGraph:
    """prod with the Inferentia2 backend at weight 0 and no replicas (before the rollout starts)."""
    path, _ = write_variant(tmp_path, L40S_AT_95, "              weight: 100\n", "prod")
    text = path.read_text().replace(INF2_AT_5, "              weight: 0\n", 1)
    path.write_text(text.replace(INF2_SCALING, "              autoscaling: {min_replicas: 0, max_replicas: 8}\n", 1))
    return offline_graph(load_stack_file(path))


def test_a_backend_at_zero_replicas_has_no_hpa_and_declares_zero_replicas(tmp_path: Path) -> None:
    graph = _idle_canary(tmp_path)
    hpas = _k8s(graph, "HorizontalPodAutoscaler")
    assert set(hpas) == {"serve-l40s"}, "an HPA cannot hold 0 replicas: none for the idle backend"
    deployments = _k8s(graph, "Deployment")
    assert deployments["serve-inf2"].inputs["spec"]["replicas"] == 0
    assert deployments["serve-l40s"].inputs["spec"]["replicas"] == 2
    # Still bound to its target group, so traffic can move to it once it has replicas.
    assert set(_k8s(graph, "TargetGroupBinding")) == {"serve-l40s", "serve-inf2"}


def test_the_service_component_records_its_declared_backends_and_rollout(prod_graph: OfflineGraph) -> None:
    platform = load_stack("prod").platform
    [service] = platform.kubernetes.inference_services
    [component] = prod_graph.by_type(SERVICE_TYPE)
    assert component.name == "acme-ml-svc-serve"
    assert component.inputs == service_props(platform, service)
    assert [(b["name"], b["weight"], b["nodePool"]) for b in component.inputs["backends"]] == [
        ("l40s", 95, "infer-l40s"),
        ("inf2", 5, "infer-inf2"),
    ]
    assert component.inputs["rollout"]["canary"] == "inf2"


def test_backend_objects_are_children_of_their_service_component(prod_graph: OfflineGraph) -> None:
    [component] = prod_graph.by_type(SERVICE_TYPE)
    for kind in ("Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "TargetGroupBinding"):
        objects = _k8s(prod_graph, kind)
        assert set(objects) == {"serve-l40s", "serve-inf2"}, kind
        assert all(o.parent == component.urn for o in objects.values()), kind
    # One service account for the service: its workload's, which its IAM role trusts.
    accounts = [r for r in prod_graph.resources if r.type == "kubernetes:core/v1:ServiceAccount"
                and r.parent == component.urn]
    assert [a.inputs["metadata"]["name"] for a in accounts] == ["serve"]


def test_inference_pods_are_scraped_and_labelled_per_service_and_backend(stack_graph: tuple[str, OfflineGraph]) -> None:
    name, graph = stack_graph
    platform = load_stack(name).platform
    monitors = _k8s(graph, "PodMonitor")
    monitor = monitors["accelplane-inference"].inputs
    assert monitor["metadata"]["namespace"] == "monitoring"
    namespaces = {w.namespace for w in platform.workloads if w.name in
                  {s.workload for s in platform.kubernetes.inference_services}}
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": sorted(namespaces)}
    assert monitor["spec"]["selector"] == {
        "matchLabels": {"app.kubernetes.io/part-of": "accelplane"},
        "matchExpressions": [{"key": "accelplane.io/backend", "operator": "Exists"}],
    }
    [endpoint] = monitor["spec"]["podMetricsEndpoints"]
    assert (endpoint["port"], endpoint["path"]) == ("http", "/metrics")
    relabel = {r["targetLabel"]: r["sourceLabels"] for r in endpoint["relabelings"]}
    assert relabel == {
        "service": ["__meta_kubernetes_pod_label_accelplane_io_service"],
        "backend": ["__meta_kubernetes_pod_label_accelplane_io_backend"],
    }
    # Every inference pod carries both labels the relabelling reads.
    for deployment in _k8s(graph, "Deployment").values():
        labels = deployment.inputs["spec"]["template"]["metadata"]["labels"]
        if deployment.inputs["metadata"]["namespace"] in namespaces:
            assert {"accelplane.io/service", "accelplane.io/backend"} <= set(labels), deployment.name
            [container] = deployment.inputs["spec"]["template"]["spec"]["containers"]
            assert "http" in [p["name"] for p in container["ports"]], deployment.name


def test_the_latency_alert_is_per_backend_wherever_the_services_run(prod_graph: OfflineGraph) -> None:
    [rule] = prod_graph.by_type("kubernetes:monitoring.coreos.com/v1:PrometheusRule")
    [alert] = [r for r in rule.inputs["spec"]["groups"][0]["rules"] if r["alert"] == "InferenceP99LatencyHigh"]
    assert "sum by (le, service, backend)" in alert["expr"]
    assert 'http_request_duration_seconds_bucket{backend!=""}' in alert["expr"]  # the PodMonitor's series only
    assert "namespace=" not in alert["expr"]


def _capturing(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> dict[str, pulumi.ResourceOptions]:
    """Record the options each `module.name` resource is created with (the offline graph keeps inputs only)."""
    original = getattr(module, name)
    seen: dict[str, pulumi.ResourceOptions] = {}

    def create(resource_name: str, *args: object, opts: pulumi.ResourceOptions | None = None, **kwargs: object):
        seen[resource_name] = opts or pulumi.ResourceOptions()
        return original(resource_name, *args, opts=opts, **kwargs)

    monkeypatch.setattr(module, name, create)
    return seen


def test_pulumi_leaves_the_replica_count_to_the_hpa_only_where_there_is_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _capturing(monkeypatch, pulumi_kubernetes.apps.v1, "Deployment")
    _idle_canary(tmp_path)
    assert seen["acme-ml-svc-serve-l40s-deployment"].ignore_changes == ["spec.replicas"]
    assert not seen["acme-ml-svc-serve-inf2-deployment"].ignore_changes  # no HPA: the declared 0 holds


def test_the_single_backend_service_keeps_the_endpoint_s_original_target_group(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _capturing(monkeypatch, pulumi_aws.lb, "TargetGroup")
    offline_graph(load_stack("dev"))
    [(name, opts)] = seen.items()
    assert name == "acme-ml-dev-inference-tg-server-server"
    # An existing stack's target group (and the ARN its binding and the controller's role name) is kept.
    assert [alias.name for alias in opts.aliases or []] == ["acme-ml-dev-inference-tg"]
    seen.clear()
    offline_graph(load_stack("prod"))
    assert all(not opts.aliases for opts in seen.values()) and len(seen) == 2


DEV_IMAGE = (
    "111122223333.dkr.ecr.us-east-1.amazonaws.com/llm-server@sha256:"
    "8f4b1c3a9e2d7f6b5a4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"
)
DEV_INLINE = (
    "          node_pool: infer-l4\n"
    f"          image: {DEV_IMAGE}\n"
    "          port: 8000\n"
    "          accelerators_per_replica: 1\n"
    '          cpu: "3"\n'
    "          memory: 12Gi\n"
    "          autoscaling: {min_replicas: 1, max_replicas: 2, target_cpu_utilization: 70}\n"
)


def test_a_service_gaining_a_backend_keeps_what_runs_today(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    backends = "".join(
        f"            - {{name: {name}, node_pool: infer-l4, image: {DEV_IMAGE}, weight: {weight}, cpu: '3', "
        "memory: 12Gi, autoscaling: {min_replicas: 1, max_replicas: 2}}\n"
        for name, weight in (("server", 90), ("next", 10))
    )
    path, _ = write_variant(tmp_path, DEV_INLINE, "          port: 8000\n          backends:\n" + backends, "dev")
    groups = _capturing(monkeypatch, pulumi_aws.lb, "TargetGroup")
    graph = offline_graph(load_stack_file(path))
    aliases = {name: [a.name for a in opts.aliases or []] for name, opts in groups.items()}
    assert aliases == {"acme-ml-dev-inference-tg-server-server": ["acme-ml-dev-inference-tg"],
                      "acme-ml-dev-inference-tg-server-next": []}
    # The backend named after the service keeps the objects' names and logical names; the new one is new.
    deployments = {r.name: r.inputs["metadata"]["name"] for r in graph.by_type("kubernetes:apps/v1:Deployment")}
    assert deployments == {"acme-ml-dev-svc-server-deployment": "server",
                           "acme-ml-dev-svc-server-next-deployment": "server-next"}


def test_the_service_component_registers_its_props_as_outputs_for_stack_policies(prod_graph: OfflineGraph) -> None:
    """CrossGuard stack policies read a resource's outputs: the rollout rules need the backends there."""
    (service,) = prod_graph.by_type(SERVICE_TYPE)
    assert service.outputs == service.inputs
    assert [b["name"] for b in service.outputs["backends"]] == ["l40s", "inf2"]
