"""The Kubernetes layer of dev and prod: what must hold for accelerators, services, jobs and queues."""

from __future__ import annotations

import json

import pytest
import yaml

from accelplane.clouds.aws.catalog import instance_facts
from accelplane.config.loader import load_stack
from accelplane.engine.graph import OfflineGraph, RecordedResource
from accelplane.k8s.manifests import manifests, validate_graph


@pytest.fixture(params=["dev", "prod"])
def stack(
    request: pytest.FixtureRequest, dev_graph: OfflineGraph, prod_graph: OfflineGraph
) -> tuple[str, OfflineGraph]:
    return request.param, {"dev": dev_graph, "prod": prod_graph}[request.param]


def _k8s(graph: OfflineGraph, kind: str) -> list[RecordedResource]:
    return [r for r in graph.resources if r.type.startswith("kubernetes:") and r.type.endswith(f":{kind}")]


def test_every_builtin_manifest_validates_strictly(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    report = validate_graph(graph, load_stack(name).platform.kubernetes_version)
    assert report.errors == []
    assert len(report.validated) >= 20
    kinds = {label.split("/")[0] for label in report.unchecked}
    assert kinds <= {
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "TargetGroupBinding",
        "PrometheusRule",
        "PodMonitor",
    }


def test_validation_catches_an_unknown_field(dev_graph: OfflineGraph) -> None:
    deployment = next(r for r in dev_graph.resources if r.type == "kubernetes:apps/v1:Deployment")
    broken = json.loads(json.dumps(deployment.inputs))
    broken["spec"]["template"]["spec"]["containers"][0]["gpus"] = 1
    graph = OfflineGraph(
        stack="t",
        resources=[RecordedResource(urn="u", type=deployment.type, name="d", parent=None, custom=True, inputs=broken)],
    )
    [(label, message)] = validate_graph(graph, "1.33").errors
    assert label.startswith("Deployment/server") and "'gpus' was unexpected" in message


def test_provider_is_explicit_and_built_from_the_cluster(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    [provider] = graph.by_type("pulumi:providers:kubernetes")
    config = json.loads(provider.inputs["kubeconfig"])
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"].endswith(f".{platform.region}.eks.amazonaws.com")
    assert cluster["certificate-authority-data"]
    user = config["users"][0]["user"]["exec"]
    assert user["command"] == "aws" and user["args"][:4] == ["eks", "get-token", "--cluster-name", platform.name]
    kubernetes_objects = [r for r in graph.resources if r.type.startswith("kubernetes:")]
    assert kubernetes_objects
    for resource in kubernetes_objects:
        assert (resource.provider or "").startswith(f"{provider.urn}::"), f"{resource.name} uses another provider"


def _by_name(graph: OfflineGraph, kind: str) -> dict[str, RecordedResource]:
    return {r.inputs["metadata"]["name"]: r for r in _k8s(graph, kind)}


def test_inference_deployment_probes_requests_tolerations_and_spread(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    [service] = platform.kubernetes.inference_services
    deployments = _by_name(graph, "Deployment")
    accounts = set()
    for backend in service.serving_backends:
        pool = next(p for p in platform.node_pools if p.name == backend.node_pool)
        resource = {"nvidia": "nvidia.com/gpu", "aws": "aws.amazon.com/neuron"}[pool.accelerator.split("-")[0]]
        deployment = deployments[service.object_name(backend)]
        pod = deployment.inputs["spec"]["template"]["spec"]
        [container] = pod["containers"]
        assert container["image"] == backend.image and "@sha256:" in container["image"]
        health = platform.inference_endpoint.health_check.path
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            assert container[probe]["httpGet"] == {"path": health, "port": "http"}, probe
        resources = container["resources"]
        assert resources["requests"][resource] == resources["limits"][resource] == str(
            backend.accelerators_per_replica
        ), deployment.name
        assert pod["nodeSelector"] == {"accelplane.io/pool": pool.name}, deployment.name
        node_group = graph.named(f"{platform.name}-{pool.name}-ng").inputs
        taints = {(t["key"], t["value"]) for t in node_group["taints"]}
        assert {(t["key"], t["value"]) for t in pod["tolerations"]} == taints, deployment.name
        assert all(t["effect"] == "NoSchedule" for t in pod["tolerations"])
        [spread] = pod["topologySpreadConstraints"]
        assert spread["topologyKey"] == "topology.kubernetes.io/zone"
        accounts.add(pod["serviceAccountName"])
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
    workload = next(w for w in platform.workloads if w.name == service.workload)
    assert accounts == {workload.name}  # one service account per service, whatever its backends
    [account] = [a for a in _k8s(graph, "ServiceAccount") if a.inputs["metadata"]["namespace"] == workload.namespace]
    role = graph.named(f"{platform.name}-{workload.name}-role")
    assert role.inputs["tags"]["accelplane.io/workload"] == workload.name
    assert account.inputs["metadata"]["annotations"]["eks.amazonaws.com/role-arn"].startswith(
        f"arn:aws:iam::123456789012:role/{platform.name}-{workload.name}-role-"
    )


def test_prod_backends_run_on_their_own_pools_with_their_accelerators(prod_graph: OfflineGraph) -> None:
    deployments = _by_name(prod_graph, "Deployment")
    l40s = deployments["serve-l40s"].inputs["spec"]["template"]["spec"]
    inf2 = deployments["serve-inf2"].inputs["spec"]["template"]["spec"]
    assert l40s["nodeSelector"] == {"accelplane.io/pool": "infer-l40s"}
    assert inf2["nodeSelector"] == {"accelplane.io/pool": "infer-inf2"}
    assert set(l40s["containers"][0]["resources"]["limits"]) == {"memory", "nvidia.com/gpu"}
    assert inf2["containers"][0]["resources"]["limits"] == {"memory": "12Gi", "aws.amazon.com/neuron": "1"}
    assert {t["key"] for t in inf2["tolerations"]} == {"aws.amazon.com/neuron"}
    assert {t["key"] for t in l40s["tolerations"]} == {"nvidia.com/gpu"}


def test_backends_of_one_service_never_select_each_other_s_pods(prod_graph: OfflineGraph) -> None:
    deployments = _by_name(prod_graph, "Deployment")
    services = _by_name(prod_graph, "Service")
    pdbs = _by_name(prod_graph, "PodDisruptionBudget")
    pods = {n: d.inputs["spec"]["template"]["metadata"]["labels"] for n, d in deployments.items()}
    assert pods["serve-l40s"]["accelplane.io/service"] == pods["serve-inf2"]["accelplane.io/service"] == "serve"
    assert (pods["serve-l40s"]["accelplane.io/backend"], pods["serve-inf2"]["accelplane.io/backend"]) == (
        "l40s", "inf2"
    )
    for own, other in (("serve-l40s", "serve-inf2"), ("serve-inf2", "serve-l40s")):
        for selector in (
            deployments[own].inputs["spec"]["selector"]["matchLabels"],
            services[own].inputs["spec"]["selector"],
            pdbs[own].inputs["spec"]["selector"]["matchLabels"],
        ):
            assert selector.items() <= pods[own].items(), own
            assert not selector.items() <= pods[other].items(), f"{own}'s selector matches {other}'s pods"
            assert {"accelplane.io/service", "accelplane.io/backend"} <= set(selector), own


def test_a_running_single_backend_deployment_keeps_its_selector(dev_graph: OfflineGraph) -> None:
    # A Deployment's selector is immutable: a new one would replace (delete, then create) what serves today.
    [deployment] = _k8s(dev_graph, "Deployment")
    assert deployment.inputs["spec"]["selector"]["matchLabels"] == {
        "app.kubernetes.io/name": "server", "app.kubernetes.io/part-of": "accelplane"
    }
    labels = deployment.inputs["spec"]["template"]["metadata"]["labels"]
    assert (labels["accelplane.io/service"], labels["accelplane.io/backend"]) == ("server", "server")


def test_hpa_pdb_and_target_group_binding(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    [service] = platform.kubernetes.inference_services
    hpas, pdbs = _by_name(graph, "HorizontalPodAutoscaler"), _by_name(graph, "PodDisruptionBudget")
    bindings = _by_name(graph, "TargetGroupBinding")
    assert len(bindings) == len(service.serving_backends)
    for backend in service.serving_backends:
        object_name = service.object_name(backend)
        hpa = hpas[object_name]
        spec = hpa.inputs["spec"]
        assert hpa.type == "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
        assert spec["scaleTargetRef"]["name"] == object_name
        assert (spec["minReplicas"], spec["maxReplicas"]) == (
            backend.autoscaling.min_replicas,
            backend.autoscaling.max_replicas,
        )
        target = spec["metrics"][0]["resource"]["target"]["averageUtilization"]
        assert target == backend.autoscaling.target_cpu_utilization
        assert pdbs[object_name].inputs["spec"]["maxUnavailable"] == 1
        binding = bindings[object_name]
        target_group = graph.named(f"{platform.name}-inference-tg-{service.name}-{backend.name}")
        assert binding.inputs["spec"]["targetType"] == "ip"
        assert binding.inputs["spec"]["targetGroupARN"].endswith(f"/{target_group.id}"), object_name
        assert binding.inputs["spec"]["serviceRef"] == {"name": object_name, "port": service.port}


def test_load_balancer_controller_role_is_scoped_to_the_target_groups(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    policy = json.loads(graph.named(f"{platform.name}-lbc-irsa-access").inputs["policy"])
    by_sid = {s["Sid"]: s for s in policy["Statement"]}
    assert all(a.split(":")[1].startswith("Describe") for a in by_sid["Discover"]["Action"])
    register = by_sid["RegisterPodsInDeclaredTargetGroup"]
    groups = [r for r in graph.resources if r.type == "aws:lb/targetGroup:TargetGroup"]
    assert groups and sorted(register["Resource"]) == sorted(g.outputs["arn"] for g in groups)
    assert not any("Create" in a or a.endswith("*") for s in policy["Statement"] for a in s["Action"])
    trust = json.loads(graph.named(f"{platform.name}-lbc-irsa-role").inputs["assumeRolePolicy"])
    [subject] = [v for k, v in trust["Statement"][0]["Condition"]["StringEquals"].items() if k.endswith(":sub")]
    assert subject == "system:serviceaccount:kube-system:aws-load-balancer-controller"


def test_charts_are_pinned_from_the_profiles(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    releases = {r.inputs["chart"].rsplit("/", 1)[-1]: r.inputs for r in graph.by_type("kubernetes:helm.sh/v3:Release")}
    addons = platform.software_profiles[platform.kubernetes.addons_profile]
    assert releases["aws-load-balancer-controller"]["version"] == addons.aws_load_balancer_controller
    assert releases["kueue"]["version"] == addons.kueue and releases["jobset"]["version"] == addons.jobset
    assert releases["kube-prometheus-stack"]["version"] == addons.kube_prometheus_stack
    gpu_profile = next(
        platform.pool_profile(p) for p in platform.node_pools if (p.accelerator or "").startswith("nvidia")
    )
    assert releases["nvidia-device-plugin"]["version"] == gpu_profile.nvidia_device_plugin
    assert releases["dcgm-exporter"]["version"] == gpu_profile.dcgm_exporter
    for release in releases.values():
        assert release["version"][0].isdigit(), release  # exact versions, never ranges or "latest"


def test_device_plugins_follow_the_pools_present(prod_graph: OfflineGraph, dev_graph: OfflineGraph) -> None:
    prod = {r.inputs["chart"].rsplit("/", 1)[-1] for r in prod_graph.by_type("kubernetes:helm.sh/v3:Release")}
    dev = {r.inputs["chart"].rsplit("/", 1)[-1] for r in dev_graph.by_type("kubernetes:helm.sh/v3:Release")}
    assert {"neuron-helm-chart", "aws-efa-k8s-device-plugin", "nvidia-device-plugin"} <= prod
    assert "neuron-helm-chart" not in dev and "aws-efa-k8s-device-plugin" not in dev  # no Neuron, no EFA pools
    efa = next(
        r.inputs
        for r in prod_graph.by_type("kubernetes:helm.sh/v3:Release")
        if r.inputs["chart"] == "aws-efa-k8s-device-plugin"
    )
    assert efa["values"]["nodeSelector"] == {"accelplane.io/efa": "true"}
    assert {t["key"] for t in efa["values"]["tolerations"]} == {"nvidia.com/gpu", "aws.amazon.com/neuron"}


def test_resource_flavors_match_pools(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    flavors = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in _k8s(graph, "ResourceFlavor")}
    accelerator_pools = [p for p in platform.node_pools if p.accelerator]
    assert set(flavors) == {p.name for p in accelerator_pools}
    for pool in accelerator_pools:
        spec = flavors[pool.name]
        node_group = graph.named(f"{platform.name}-{pool.name}-ng").inputs
        assert node_group["labels"]["accelplane.io/pool"] == spec["nodeLabels"]["accelplane.io/pool"]
        assert [(t["key"], t["value"]) for t in spec["nodeTaints"]] == [
            (t["key"], t["value"]) for t in node_group["taints"]
        ]


def test_cluster_queues_quota_borrowing_and_local_queues(prod_graph: OfflineGraph) -> None:
    platform = load_stack("prod").platform
    queues = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in _k8s(prod_graph, "ClusterQueue")}
    assert set(queues) == {"foundation-models", "applied-research"}
    fm = queues["foundation-models"]
    assert fm["cohort"] == "accelplane"
    [group] = fm["resourceGroups"]
    assert group["coveredResources"] == ["aws.amazon.com/neuron", "nvidia.com/gpu"]
    quota = {
        (f["name"], r["name"]): (r["nominalQuota"], r["borrowingLimit"])
        for f in group["flavors"]
        for r in f["resources"]
    }
    assert quota[("train-h100", "nvidia.com/gpu")] == (16, 8)
    assert quota[("train-h100", "aws.amazon.com/neuron")] == (0, 0)
    assert quota[("train-trn1", "aws.amazon.com/neuron")] == (32, 8)
    local = {
        (r.inputs["metadata"]["namespace"], r.inputs["spec"]["clusterQueue"]) for r in _k8s(prod_graph, "LocalQueue")
    }
    assert local == {(t.namespace, t.name) for t in platform.kubernetes.teams}


def test_namespaces_quotas_limits_and_default_deny(stack: tuple[str, OfflineGraph]) -> None:
    name, graph = stack
    platform = load_stack(name).platform
    namespaces = {r.inputs["metadata"]["name"] for r in _k8s(graph, "Namespace")}
    assert {w.namespace for w in platform.workloads} <= namespaces
    quotas = {r.inputs["metadata"]["namespace"]: r.inputs["spec"]["hard"] for r in _k8s(graph, "ResourceQuota")}
    if name == "prod":
        # training: foundation-models' nominal + borrowing; inference: the L40S and Inferentia2 pools' full capacity.
        assert quotas["training"] == {"requests.aws.amazon.com/neuron": "40", "requests.nvidia.com/gpu": "24"}
        per_node = instance_facts("g6e.2xlarge").accelerator_count
        neuron = instance_facts("inf2.xlarge").accelerator_count
        assert quotas["inference"] == {
            "requests.nvidia.com/gpu": str(12 * per_node), "requests.aws.amazon.com/neuron": str(8 * neuron)
        }
    policies = {
        (r.inputs["metadata"]["namespace"], r.inputs["metadata"]["name"]): r.inputs["spec"]
        for r in _k8s(graph, "NetworkPolicy")
    }
    for namespace in namespaces:
        deny = policies[(namespace, "default-deny")]
        assert deny == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
        egress = policies[(namespace, "allow-dns-and-https-egress")]["egress"]
        assert egress[1]["to"][0]["ipBlock"]["except"] == ["169.254.169.254/32"]
    assert len({r.inputs["metadata"]["namespace"] for r in _k8s(graph, "LimitRange")}) == len(namespaces)
    inference_ingress = policies[("inference", "allow-load-balancer-and-metrics")]["ingress"]
    lb_rule = inference_ingress[1]
    assert [b["ipBlock"]["cidr"] for b in lb_rule["from"]] == platform.network.new_vpc.public_subnets
    assert ("training", "allow-within-namespace") in policies and (
        "inference",
        "allow-within-namespace",
    ) not in policies


def test_priority_classes_put_inference_above_preemptible_training(stack: tuple[str, OfflineGraph]) -> None:
    _, graph = stack
    classes = {r.inputs["metadata"]["name"]: r.inputs for r in _k8s(graph, "PriorityClass")}
    assert classes["accelplane-inference"]["value"] > classes["accelplane-training"]["value"]
    assert classes["accelplane-training"]["preemptionPolicy"] == "Never"


def test_training_template_requests_all_accelerators_and_efa_and_resumes(prod_graph: OfflineGraph) -> None:
    platform = load_stack("prod").platform
    config_maps = {r.inputs["metadata"]["name"]: r.inputs for r in _k8s(prod_graph, "ConfigMap")}
    jobset = yaml.safe_load(config_maps["train-h100-jobset"]["data"]["jobset.yaml"])
    assert jobset["kind"] == "JobSet" and jobset["apiVersion"] == "jobset.x-k8s.io/v1alpha2"
    assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "foundation-models-queue"
    assert jobset["spec"]["failurePolicy"]["maxRestarts"] == 5
    job = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    template = next(t for t in platform.kubernetes.training_templates if t.node_pool == "train-h100")
    assert job["parallelism"] == job["completions"] == template.nodes == 3
    pod = job["template"]["spec"]
    [container] = pod["containers"]
    requests, limits = container["resources"]["requests"], container["resources"]["limits"]
    assert requests == limits == {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}
    env = {e["name"]: e["value"] for e in container["env"]}
    checkpoints = prod_graph.named("acme-ml-checkpoints-bucket")
    assert env["ACCELPLANE_CHECKPOINT_URI"].startswith("s3://acme-ml-checkpoints-")
    assert env["ACCELPLANE_CHECKPOINT_URI"].endswith("/pretrain/") and checkpoints
    assert env["ACCELPLANE_RESUME_FROM"] == "latest"
    assert pod["serviceAccountName"] == "pretrain" and pod["nodeSelector"] == {"accelplane.io/pool": "train-h100"}
    trn = yaml.safe_load(config_maps["train-trn1-jobset"]["data"]["jobset.yaml"])
    trn_container = trn["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert trn_container["resources"]["limits"] == {"aws.amazon.com/neuron": "16", "vpc.amazonaws.com/efa": "8"}


def test_alert_rules_cover_accelerator_failures(stack: tuple[str, OfflineGraph]) -> None:
    _, graph = stack
    [rule] = _k8s(graph, "PrometheusRule")
    alerts = {r["alert"]: r for r in rule.inputs["spec"]["groups"][0]["rules"]}
    assert {
        "AcceleratorXidError",
        "AcceleratorMemoryNearlyFull",
        "AcceleratorLowUtilization",
        "InferenceP99LatencyHigh",
        "NodeNotReady",
        "NeuronHardwareError",
    } <= set(alerts)
    assert "DCGM_FI_DEV_XID_ERRORS" in alerts["AcceleratorXidError"]["expr"]


def test_no_manifest_carries_a_secret_value(stack: tuple[str, OfflineGraph]) -> None:
    _, graph = stack
    for resource, manifest in manifests(graph.resources):
        assert manifest.get("kind") != "Secret", resource.name
        text = json.dumps(manifest)
        assert "secretKeyRef" not in text and "[secret]" not in text, resource.name
