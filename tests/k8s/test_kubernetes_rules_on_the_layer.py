"""The Kubernetes rules pass on what the layer creates for dev and prod, and catch a badly declared
service: a hand-written Deployment with a tag instead of a digest, no probes, privileged, host
paths, and accelerator requests different from limits."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from accelplane.engine.graph import OfflineGraph, from_offline_graph
from accelplane.rules.engine import evaluate
from accelplane.rules.graph import ReferenceGraph


def _kubernetes_findings(graph: OfflineGraph, environment: str) -> set[str]:
    evaluation = evaluate(ReferenceGraph(from_offline_graph(graph), stack=graph.stack, environment=environment))
    return {f.rule.id for f in evaluation.findings if f.rule.id.startswith("AP-K8S-")}


def test_layer_passes_the_kubernetes_rules(dev_graph: OfflineGraph, prod_graph: OfflineGraph) -> None:
    assert _kubernetes_findings(dev_graph, "dev") == set()
    assert _kubernetes_findings(prod_graph, "prod") == set()


def test_a_badly_declared_service_trips_the_kubernetes_rules(prod_graph: OfflineGraph) -> None:
    resources = []
    for resource in prod_graph.resources:
        if resource.type == "kubernetes:apps/v1:Deployment":
            inputs = copy.deepcopy(resource.inputs)
            pod = inputs["spec"]["template"]["spec"]
            container = pod["containers"][0]
            container["image"] = "registry.example.com/llm-server:latest"
            for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                container.pop(probe)
            container["securityContext"] = {"privileged": True}
            container["resources"]["limits"]["nvidia.com/gpu"] = "2"
            pod["hostNetwork"] = True
            pod["volumes"] = [{"name": "host", "hostPath": {"path": "/var/lib"}}]
            resource = replace(resource, inputs=inputs)
        resources.append(resource)
    bad = OfflineGraph(stack="prod", resources=resources)
    found = _kubernetes_findings(bad, "prod")
    assert {"AP-K8S-001", "AP-K8S-002", "AP-K8S-003", "AP-K8S-004", "AP-K8S-005", "AP-K8S-006"} <= found, found


def _with_daemon_set(graph: OfflineGraph, edit: Callable[[dict[str, Any]], None]) -> OfflineGraph:
    """The graph with the neuron-monitor DaemonSet's inputs changed by `edit`."""
    resources = []
    for resource in graph.resources:
        if resource.type == "kubernetes:apps/v1:DaemonSet" and resource.inputs["metadata"]["name"] == "neuron-monitor":
            inputs = copy.deepcopy(resource.inputs)
            edit(inputs)
            resource = replace(resource, inputs=inputs)
        resources.append(resource)
    return OfflineGraph(stack=graph.stack, resources=resources)


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(inputs: dict[str, Any]) -> None:
        target = inputs
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


TEMPLATE = ("spec", "template")
COMPONENT = "app.kubernetes.io/component"


def test_privileged_exporter_is_exempt_only_by_its_identity(prod_graph: OfflineGraph) -> None:
    """The neuron-monitor DaemonSet passes AP-K8S-001 because it is the platform's: kube-system, its name,
    the profile's image by digest. The same privileged pod anywhere else, under another name or on another
    image is still a finding; its labels neither grant nor lose the exemption."""
    containers = (*TEMPLATE, "spec", "containers")

    def move(inputs: dict[str, Any]) -> None:
        inputs["metadata"]["namespace"] = "training"

    def rename(inputs: dict[str, Any]) -> None:
        inputs["metadata"]["name"] = "gpu-exporter"

    def float_the_tag(inputs: dict[str, Any]) -> None:
        container = _get(inputs, containers)[0]
        container["image"] = container["image"].split("@")[0].rsplit("/", 1)[0] + "/neuron-monitor:1.3.0"

    def swap_the_image(inputs: dict[str, Any]) -> None:
        _get(inputs, containers)[0]["image"] = "registry.example.com/miner@sha256:" + "f" * 64

    def add_a_sidecar(inputs: dict[str, Any]) -> None:
        _get(inputs, containers).append({"name": "sidecar", "image": "registry.example.com/sidecar:latest"})

    def unlabel(inputs: dict[str, Any]) -> None:
        for metadata in (inputs["metadata"], inputs["spec"]["template"]["metadata"]):
            metadata["labels"].pop(COMPONENT)

    def relabel_as_device_plugin(inputs: dict[str, Any]) -> None:
        for metadata in (inputs["metadata"], inputs["spec"]["template"]["metadata"]):
            metadata["labels"][COMPONENT] = "device-plugin"

    assert "AP-K8S-001" not in _kubernetes_findings(prod_graph, "prod")
    for edit in (move, rename, float_the_tag, swap_the_image, add_a_sidecar):
        found = _kubernetes_findings(_with_daemon_set(prod_graph, edit), "prod")
        assert "AP-K8S-001" in found, edit.__name__
    for edit in (unlabel, relabel_as_device_plugin):
        found = _kubernetes_findings(_with_daemon_set(prod_graph, edit), "prod")
        assert "AP-K8S-001" not in found, edit.__name__


def _get(inputs: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        inputs = inputs[key]
    return inputs


def test_exemption_table_matches_what_the_layer_deploys(prod_graph: OfflineGraph) -> None:
    """The rules' identity of neuron-monitor (plain data, no import of the components) and the component
    agree: namespace, name, and the repository of the image the stacks' profiles pin."""
    from accelplane.config.loader import load_stack
    from accelplane.k8s import neuron_monitor
    from accelplane.rules.kubernetes.platform_components import NEURON_MONITOR, repository_name

    assert (NEURON_MONITOR.namespace, NEURON_MONITOR.name) == (neuron_monitor.NAMESPACE, neuron_monitor.NAME)
    profiles = load_stack("prod").platform.software_profiles.values()
    images = {p.neuron_monitor_image for p in profiles if getattr(p, NEURON_MONITOR.profile_field)}
    assert images and {repository_name(i) for i in images} == {NEURON_MONITOR.repository}
    [daemon_set] = [r for r in prod_graph.by_type("kubernetes:apps/v1:DaemonSet")]
    assert [c["image"] for c in daemon_set.inputs["spec"]["template"]["spec"]["containers"]] == sorted(images)


def test_device_monitor_exemption_does_not_cover_host_paths_or_namespaces(prod_graph: OfflineGraph) -> None:
    host_path = _set((*TEMPLATE, "spec", "volumes"), [{"name": "dev", "hostPath": {"path": "/dev"}}])
    host_network = _set((*TEMPLATE, "spec", "hostNetwork"), True)
    assert "AP-K8S-003" in _kubernetes_findings(_with_daemon_set(prod_graph, host_path), "prod")
    assert "AP-K8S-002" in _kubernetes_findings(_with_daemon_set(prod_graph, host_network), "prod")
