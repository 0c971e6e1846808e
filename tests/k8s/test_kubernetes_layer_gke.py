"""The Kubernetes layer on GKE (tpu-prod, tpu-dev): what must hold for TPU and GPU pools, the Gateway,
the JobSet templates, queues, quotas, policies and monitoring, and that every manifest validates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.config.loader import load_stack, load_stack_file
from accelplane.engine.graph import OfflineGraph, RecordedResource
from accelplane.k8s.manifests import validate_graph
from accelplane.program import offline_graph
from tests.support.stack_files import write_variant


@pytest.fixture(scope="module")
def tpu_prod(tpu_prod_graph: OfflineGraph) -> OfflineGraph:
    return tpu_prod_graph  # built once per test process (tests/conftest.py)


@pytest.fixture(scope="module")
def tpu_dev() -> OfflineGraph:
    return offline_graph(load_stack("tpu-dev"))


def _k8s(graph: OfflineGraph, kind: str) -> list[RecordedResource]:
    return [r for r in graph.resources if r.type.startswith("kubernetes:") and r.type.endswith(f":{kind}")]


def _one(graph: OfflineGraph, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    found = [r.inputs for r in _k8s(graph, kind) if r.inputs["metadata"].get("name") == name
             and (namespace is None or r.inputs["metadata"].get("namespace") == namespace)]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} found"
    return found[0]


def _jobset(graph: OfflineGraph, pool: str) -> dict[str, Any]:
    return yaml.safe_load(_one(graph, "ConfigMap", f"{pool}-jobset")["data"]["jobset.yaml"])


def _pod(jobset: dict[str, Any]) -> dict[str, Any]:
    return jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]


TPU_TOLERATION = {"key": "google.com/tpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


@pytest.mark.parametrize("stack", ["tpu-dev", "tpu-prod"])
def test_every_manifest_validates_strictly_custom_resources_included(stack: str, tpu_dev: OfflineGraph,
                                                                      tpu_prod: OfflineGraph) -> None:
    graph = {"tpu-dev": tpu_dev, "tpu-prod": tpu_prod}[stack]
    report = validate_graph(graph, load_stack(stack).platform.kubernetes_version)
    assert report.errors == []
    assert report.unchecked == []  # Gateway API, GKE policies, Kueue, JobSet, PodMonitor: all have schemas
    kinds = {label.split("/")[0] for label in report.validated}
    assert {"Gateway", "HTTPRoute", "GCPBackendPolicy", "GCPGatewayPolicy", "HealthCheckPolicy", "JobSet",
            "PodMonitor", "ResourceFlavor", "Deployment", "NetworkPolicy"} <= kinds


def test_provider_uses_the_gke_auth_plugin_and_the_cluster_s_endpoint(tpu_prod: OfflineGraph) -> None:
    [provider] = tpu_prod.by_type("pulumi:providers:kubernetes")
    config = json.loads(provider.inputs["kubeconfig"])
    cluster = tpu_prod.by_type("gcp:container/cluster:Cluster")[0]
    assert config["clusters"][0]["cluster"] == {
        "server": f"https://{cluster.outputs['endpoint']}",
        "certificate-authority-data": cluster.outputs["masterAuth"]["clusterCaCertificate"],
    }
    user = config["users"][0]["user"]["exec"]
    assert user["command"] == "gke-gcloud-auth-plugin" and user["provideClusterInfo"] is True
    assert "args" not in user and user["interactiveMode"] == "Never"
    for resource in tpu_prod.resources:
        if resource.type.startswith("kubernetes:"):
            assert (resource.provider or "").startswith(f"{provider.urn}::"), resource.name


def test_gke_runs_its_own_device_plugins_and_no_load_balancer_controller(tpu_prod: OfflineGraph) -> None:
    charts = {r.inputs["chart"].rsplit("/", 1)[-1] for r in tpu_prod.by_type("kubernetes:helm.sh/v3:Release")}
    assert charts == {"kueue", "jobset", "kube-prometheus-stack"}
    assert not [r for r in tpu_prod.resources if r.type.startswith(("aws:", "pulumi:providers:aws"))]
    assert not [r for r in tpu_prod.resources if r.type == "accelplane:k8s:AcceleratorEnablement"]


def test_tpu_inference_pods_take_the_whole_vm_on_the_slice_s_nodes(tpu_prod: OfflineGraph) -> None:
    platform = load_stack("tpu-prod").platform
    pool = next(p for p in platform.node_pools if p.name == "infer-v5e")
    shape = gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology or "")
    assert shape is not None and shape.single_host
    deployment = _one(tpu_prod, "Deployment", "llm-server-v5e", "inference")
    pod = deployment["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"accelplane.io/pool": "infer-v5e", **shape.node_labels}
    assert pod["nodeSelector"]["cloud.google.com/gke-tpu-accelerator"] == "tpu-v5-lite-podslice"
    assert pod["tolerations"] == [TPU_TOLERATION]
    resources = pod["containers"][0]["resources"]
    assert resources["requests"]["google.com/tpu"] == resources["limits"]["google.com/tpu"] == "8"
    assert shape.tpu_resource_per_vm == 8
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert pod["containers"][0][probe]["httpGet"]["path"] == platform.inference_endpoint.health_check.path
    # Workload Identity: the IAM bindings name this KSA; nothing to annotate.
    account = _one(tpu_prod, "ServiceAccount", "serve", "inference")
    assert "annotations" not in account["metadata"]
    assert _one(tpu_prod, "HorizontalPodAutoscaler", "llm-server-v5e", "inference")["spec"]["maxReplicas"] == 6
    assert _one(tpu_prod, "PodDisruptionBudget", "llm-server-v5e", "inference")["spec"]["maxUnavailable"] == 1
    assert not _k8s(tpu_prod, "TargetGroupBinding")


def test_gateway_uses_the_reserved_address_certificate_map_and_ssl_policy(tpu_prod: OfflineGraph) -> None:
    platform = load_stack("tpu-prod").platform
    gateway = _one(tpu_prod, "Gateway", "inference", "accelplane-gateway")
    address = tpu_prod.by_type("gcp:compute/globalAddress:GlobalAddress")[0]
    assert gateway["spec"]["gatewayClassName"] == "gke-l7-global-external-managed"
    assert gateway["spec"]["addresses"] == [{"type": "NamedAddress", "value": address.outputs["name"]}]
    assert gateway["metadata"]["annotations"] == {"networking.gke.io/certmap": "acme-tpu-inference"}
    listeners = {listener["name"]: listener for listener in gateway["spec"]["listeners"]}
    assert set(listeners) == {"https", "http"}  # http_redirect defaults to true
    https = listeners["https"]
    assert (https["protocol"], https["port"]) == ("HTTPS", platform.inference_endpoint.listener_port)
    selector = https["allowedRoutes"]["namespaces"]
    assert selector["from"] == "Selector"
    assert selector["selector"]["matchExpressions"][0]["values"] == ["inference"]
    assert listeners["http"]["allowedRoutes"]["namespaces"] == {"from": "Same"}
    redirect = _one(tpu_prod, "HTTPRoute", "redirect-to-https", "accelplane-gateway")
    assert redirect["spec"]["parentRefs"][0]["sectionName"] == "http"
    assert redirect["spec"]["rules"] == [
        {"filters": [{"type": "RequestRedirect", "requestRedirect": {"scheme": "https", "statusCode": 301}}]}
    ]
    ssl = tpu_prod.by_type("gcp:compute/sSLPolicy:SSLPolicy")[0]
    policy = _one(tpu_prod, "GCPGatewayPolicy", "inference", "accelplane-gateway")
    assert policy["spec"] == {
        "default": {"sslPolicy": ssl.outputs["name"]},
        "targetRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "inference"},
    }


def test_each_exposed_service_has_a_route_health_check_and_cloud_armor(tpu_prod: OfflineGraph) -> None:
    platform = load_stack("tpu-prod").platform
    [service] = platform.kubernetes.inference_services
    route = _one(tpu_prod, "HTTPRoute", "llm-server", "inference")
    assert route["spec"]["parentRefs"] == [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                                            "name": "inference", "namespace": "accelplane-gateway",
                                            "sectionName": "https"}]
    [rule] = route["spec"]["rules"]
    assert rule["matches"] == [{"path": {"type": "PathPrefix", "value": "/"}}]
    # One weighted backendRef per backend Service: the Gateway splits requests 90/10.
    assert rule["backendRefs"] == [{"name": "llm-server-h100", "port": service.port, "weight": 90},
                                   {"name": "llm-server-v5e", "port": service.port, "weight": 10}]
    check = platform.inference_endpoint.health_check
    # The service's own Cloud Armor policy (it declares a rate limit), its request timeouts on the route.
    [armor] = [p for p in tpu_prod.by_type("gcp:compute/securityPolicy:SecurityPolicy")
               if p.name.endswith("-armor-llm-server")]
    assert rule["timeouts"] == {"request": "120s", "backendRequest": "90s"}
    for name in ("llm-server-h100", "llm-server-v5e"):
        target = {"group": "", "kind": "Service", "name": name}
        health = _one(tpu_prod, "HealthCheckPolicy", name, "inference")["spec"]
        assert health["targetRef"] == target
        # The declared path, and the body the probe must find (Google's probes pass on 200 only).
        assert health["default"]["config"] == {"type": "HTTP", "httpHealthCheck": {
            "port": service.port, "requestPath": service.health_check.path, "response": "ok"}}
        assert (health["default"]["checkIntervalSec"], health["default"]["timeoutSec"]) == (
            check.interval_seconds, check.timeout_seconds)
        backend = _one(tpu_prod, "GCPBackendPolicy", name, "inference")["spec"]
        # tpu-prod authenticates callers with Identity-Aware Proxy (tests/program/test_client_auth_gke.py).
        iap = {"enabled": True, "clientID": "123456789012-llmclients.apps.googleusercontent.com",
               "oauth2ClientSecret": {"name": "accelplane-iap-oauth-client"}}
        assert backend == {"default": {"securityPolicy": armor.outputs["name"], "timeoutSec": 90, "iap": iap,
                                       "connectionDraining": {"drainingTimeoutSec": 30}}, "targetRef": target}


def test_a_service_on_a_path_prefix_routes_only_that_prefix(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, "          port: 8000\n",
                            "          port: 8000\n          path_prefix: /chat/\n", stack="tpu-prod")
    graph = offline_graph(load_stack_file(path))
    [rule] = _one(graph, "HTTPRoute", "llm-server", "inference")["spec"]["rules"]
    assert rule["matches"] == [{"path": {"type": "PathPrefix", "value": "/chat/"}}]
    assert validate_graph(graph, "1.33").errors == []


def test_gpu_and_tpu_backends_run_on_their_own_pools(tpu_prod: OfflineGraph) -> None:
    gpu = _one(tpu_prod, "Deployment", "llm-server-h100", "inference")["spec"]["template"]["spec"]
    assert gpu["nodeSelector"] == {"accelplane.io/pool": "infer-h100",
                                   "cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
    assert gpu["tolerations"] == [GPU_TOLERATION]
    assert gpu["containers"][0]["resources"]["limits"] == {"memory": "64Gi", "nvidia.com/gpu": "1"}


def test_no_http_listener_without_the_redirect(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, "      ssl_profile: RESTRICTED\n",
                            "      ssl_profile: RESTRICTED\n      http_redirect: false\n", stack="tpu-prod")
    graph = offline_graph(load_stack_file(path))
    gateway = _one(graph, "Gateway", "inference", "accelplane-gateway")
    assert [listener["name"] for listener in gateway["spec"]["listeners"]] == ["https"]
    assert [r.inputs["metadata"]["name"] for r in _k8s(graph, "HTTPRoute")] == ["llm-server"]


def test_inference_namespace_admits_only_google_s_load_balancer_ranges(tpu_prod: OfflineGraph) -> None:
    ingress = _one(tpu_prod, "NetworkPolicy", "allow-load-balancer-and-metrics", "inference")["spec"]["ingress"]
    assert ingress[1] == {
        "from": [{"ipBlock": {"cidr": "35.191.0.0/16"}}, {"ipBlock": {"cidr": "130.211.0.0/22"}}],
        "ports": [{"protocol": "TCP", "port": 8000}],
    }
    deny = _one(tpu_prod, "NetworkPolicy", "default-deny", "inference")["spec"]
    assert deny == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    # Same namespaces, priority classes and peer policies as on EKS.
    assert {r.inputs["metadata"]["name"] for r in _k8s(tpu_prod, "PriorityClass")} == {
        "accelplane-inference", "accelplane-training"}
    assert _one(tpu_prod, "NetworkPolicy", "allow-within-namespace", "training")
    namespace = _one(tpu_prod, "Namespace", "accelplane-gateway")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


def test_multislice_jobset_one_replicated_job_per_v5p_slice(tpu_prod: OfflineGraph) -> None:
    platform = load_stack("tpu-prod").platform
    pool = next(p for p in platform.node_pools if p.name == "train-v5p")
    shape = gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology or "")
    assert shape is not None and (shape.vms, shape.chips_per_vm) == (4, 4)
    jobset = _jobset(tpu_prod, "train-v5p")
    assert jobset["metadata"]["annotations"] == {
        "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"}
    assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "foundation-models-queue"
    assert jobset["spec"]["network"] == {"enableDNSHostnames": True}  # the headless service, subdomain = name
    [replicated] = jobset["spec"]["replicatedJobs"]
    assert replicated["replicas"] == pool.scaling.max == 2  # slices
    job = replicated["template"]["spec"]
    assert job["parallelism"] == job["completions"] == shape.vms
    assert job["completionMode"] == "Indexed"
    pod = _pod(jobset)
    assert pod["nodeSelector"] == {"accelplane.io/pool": "train-v5p", **shape.node_labels}
    assert pod["tolerations"] == [{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule",
                                   "operator": "Equal"}]
    [container] = pod["containers"]
    assert container["resources"]["requests"] == container["resources"]["limits"] == {"google.com/tpu": "4"}
    env = {e["name"]: e for e in container["env"]}
    assert env["ACCELPLANE_CHECKPOINT_URI"]["value"].startswith("gs://acme-tpu-checkpoints-")
    assert env["ACCELPLANE_CHECKPOINT_URI"]["value"].endswith("/pretrain/")
    assert (env["ACCELPLANE_NODES"]["value"], env["ACCELPLANE_SLICES"]["value"]) == ("8", "2")
    assert env["MEGASCALE_NUM_SLICES"]["value"] == "2"
    assert env["MEGASCALE_SLICE_ID"]["valueFrom"]["fieldRef"]["fieldPath"] == \
        "metadata.labels['jobset.sigs.k8s.io/job-index']"
    assert env["MEGASCALE_COORDINATOR_ADDRESS"]["value"] == "$(JOBSET_NAME)-workers-0-0.$(JOBSET_NAME)"
    assert list(env).index("JOBSET_NAME") < list(env).index("MEGASCALE_COORDINATOR_ADDRESS")


def test_single_slice_jobset_has_no_multislice_wiring(tpu_dev: OfflineGraph) -> None:
    jobset = _jobset(tpu_dev, "train-v5e")
    [replicated] = jobset["spec"]["replicatedJobs"]
    assert replicated["replicas"] == 1
    assert replicated["template"]["spec"]["parallelism"] == 2  # 2x4 on 4-chip VMs
    env = {e["name"] for e in _pod(jobset)["containers"][0]["env"]}
    assert "ACCELPLANE_SLICES" in env and not {n for n in env if n.startswith("MEGASCALE_")}
    assert jobset["metadata"]["annotations"]["alpha.jobset.sigs.k8s.io/exclusive-topology"] == \
        "cloud.google.com/gke-nodepool"
    pod = _one(tpu_dev, "Deployment", "llm-server", "serving")["spec"]["template"]["spec"]
    assert pod["containers"][0]["resources"]["limits"]["google.com/tpu"] == "1"
    assert pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"] == "1x1"


def test_gpu_jobset_on_gke_uses_gke_s_labels_and_taint(tpu_prod: OfflineGraph) -> None:
    jobset = _jobset(tpu_prod, "train-h100")
    assert "annotations" not in jobset["metadata"]
    [replicated] = jobset["spec"]["replicatedJobs"]
    assert replicated["replicas"] == 1 and replicated["template"]["spec"]["parallelism"] == 2
    pod = _pod(jobset)
    assert pod["nodeSelector"] == {"accelplane.io/pool": "train-h100",
                                   "cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule",
                                   "operator": "Equal"}]
    container = pod["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "8"}
    assert not {e["name"] for e in container["env"]} & {"ACCELPLANE_SLICES", "MEGASCALE_NUM_SLICES"}


def test_kueue_flavors_queues_and_quotas_count_chips(tpu_prod: OfflineGraph) -> None:
    flavors = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in _k8s(tpu_prod, "ResourceFlavor")}
    assert set(flavors) == {"train-v5p", "infer-v5e", "infer-h100", "train-h100"}
    v5p = flavors["train-v5p"]
    assert v5p["nodeLabels"] == {"accelplane.io/pool": "train-v5p",
                                 "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
                                 "cloud.google.com/gke-tpu-topology": "2x2x4"}
    assert v5p["nodeTaints"] == [{"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"}]
    assert v5p["tolerations"] == [TPU_TOLERATION]
    assert flavors["train-h100"]["tolerations"] == [GPU_TOLERATION]
    queue = _one(tpu_prod, "ClusterQueue", "foundation-models")["spec"]
    [group] = queue["resourceGroups"]
    assert group["coveredResources"] == ["google.com/tpu", "nvidia.com/gpu"]
    quota = {(f["name"], r["name"]): r["nominalQuota"] for f in group["flavors"] for r in f["resources"]}
    assert quota[("train-v5p", "google.com/tpu")] == 32 and quota[("train-h100", "nvidia.com/gpu")] == 16
    quotas = {r.inputs["metadata"]["namespace"]: r.inputs["spec"]["hard"] for r in _k8s(tpu_prod, "ResourceQuota")}
    assert quotas["training"] == {"requests.google.com/tpu": "32", "requests.nvidia.com/gpu": "16"}
    assert quotas["research"] == {"requests.nvidia.com/gpu": "16"}  # 8 nominal + 8 borrowing
    # inference: the v5e pool (6 VMs x 8 chips) and the H100 pool (8 x 1 GPU) at full size.
    assert quotas["inference"] == {"requests.google.com/tpu": str(6 * 8), "requests.nvidia.com/gpu": str(8 * 1)}


def test_tpu_metrics_are_scraped_and_alerted_on(tpu_prod: OfflineGraph) -> None:
    monitor = _one(tpu_prod, "PodMonitor", "tpu-device-plugin", "monitoring")["spec"]
    assert monitor["namespaceSelector"] == {"matchNames": ["kube-system"]}
    assert monitor["selector"] == {"matchLabels": {"k8s-app": "tpu-device-plugin"}}
    [endpoint] = monitor["podMetricsEndpoints"]
    assert (endpoint["portNumber"], endpoint["path"]) == (2112, "/metrics")
    assert endpoint["relabelings"][0]["targetLabel"] == "node"
    [rule] = _k8s(tpu_prod, "PrometheusRule")
    alerts = {r["alert"]: r for r in rule.inputs["spec"]["groups"][0]["rules"]}
    assert set(alerts) == {"TpuLowDutyCycle", "TpuHbmNearlyFull", "TpuNodeNotReady", "InferenceP99LatencyHigh",
                           "NodeNotReady", "AcceleratorIdle"}  # no DCGM or Neuron exporter runs on GKE
    # Idle alerts for the TPU pools only (their duty cycle is scraped here), prod's 24-hour default.
    idle = [r for r in rule.inputs["spec"]["groups"][0]["rules"] if r["alert"] == "AcceleratorIdle"]
    assert sorted(r["expr"].rsplit('"pool", "', 1)[1].split('"')[0] for r in idle) == ["infer-v5e", "train-v5p"]
    assert all("duty_cycle" in r["expr"] and r["for"] == "24h" for r in idle)
    assert "duty_cycle" in alerts["TpuLowDutyCycle"]["expr"]
    assert "memory_used" in alerts["TpuHbmNearlyFull"]["expr"] and "memory_total" in alerts["TpuHbmNearlyFull"]["expr"]
    assert "label_cloud_google_com_gke_tpu_accelerator" in alerts["TpuNodeNotReady"]["expr"]
    [release] = [r for r in tpu_prod.by_type("kubernetes:helm.sh/v3:Release")
                 if r.inputs["chart"] == "kube-prometheus-stack"]
    allowlist = release.inputs["values"]["kube-state-metrics"]["metricLabelsAllowlist"]
    assert allowlist == ["nodes=[accelplane.io/pool,cloud.google.com/gke-tpu-accelerator,"
                         "cloud.google.com/gke-tpu-topology]"]


def test_top_level_components_are_the_same_kinds_as_on_eks_plus_the_gateway(tpu_prod: OfflineGraph) -> None:
    kinds = {r.type for r in tpu_prod.resources if r.type.startswith("accelplane:k8s:")}
    assert kinds == {
        "accelplane:k8s:PriorityClasses", "accelplane:k8s:WorkloadNamespace", "accelplane:k8s:InferenceGateway",
        "accelplane:k8s:BatchAddons", "accelplane:k8s:AcceleratorMonitoring", "accelplane:k8s:InferenceService",
        "accelplane:k8s:TrainingJobTemplate", "accelplane:k8s:AcceleratorQueues",
    }


def test_gpu_pools_with_gke_installed_drivers_get_gkes_managed_dcgm_metrics(tpu_prod: OfflineGraph) -> None:
    """tpu-prod's H100 pools take GKE's driver (gpu_driver default): the cluster enables the DCGM
    monitoring component, so GPU utilisation reaches Managed Service for Prometheus (docs/cost.md)."""
    [cluster] = tpu_prod.by_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["monitoringConfig"]["enableComponents"][-1] == "DCGM"
    assert cluster.inputs["monitoringConfig"]["managedPrometheus"] == {"enabled": True}
