"""The neuron-monitor exporter: on prod's Neuron pools only, pinned from the profile, scraped by the
PodMonitor, Guaranteed and probed; absent where no Neuron pool exists."""

from __future__ import annotations

from typing import Any

from accelplane.config.loader import load_stack
from accelplane.engine.graph import OfflineGraph, RecordedResource
from accelplane.k8s.manifests import validate_graph

_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


def _daemon_set(graph: OfflineGraph) -> RecordedResource:
    [daemon_set] = [
        r for r in graph.by_type("kubernetes:apps/v1:DaemonSet") if r.inputs["metadata"]["name"] == "neuron-monitor"
    ]
    return daemon_set


def _pod(graph: OfflineGraph) -> dict[str, Any]:
    return _daemon_set(graph).inputs["spec"]["template"]


def _selects(affinity: dict[str, Any], labels: dict[str, str]) -> bool:
    """Whether required node affinity (In/NotIn/Exists terms, ORed) admits a node with these labels."""
    terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]

    def holds(expression: dict[str, Any]) -> bool:
        value = labels.get(expression["key"])
        operator = expression["operator"]
        if operator == "In":
            return value in expression["values"]
        if operator == "NotIn":
            return value not in expression["values"]
        assert operator == "Exists", operator
        return value is not None

    return any(all(holds(e) for e in term["matchExpressions"]) for term in terms)


def _tolerates(tolerations: list[dict[str, Any]], taint: dict[str, str]) -> bool:
    effect = _EFFECTS[taint["effect"]]
    return any(
        t.get("key") in (None, taint["key"])  # no key: tolerates every taint (with operator Exists)
        and t.get("effect") in (None, effect)
        and (t["operator"] == "Exists" or t.get("value") == taint["value"])
        for t in tolerations
    )


def test_exporter_runs_the_profile_image_on_the_neuron_pools_only(prod_graph: OfflineGraph) -> None:
    platform = load_stack("prod").platform
    daemon_set = _daemon_set(prod_graph)
    assert daemon_set.inputs["metadata"]["namespace"] == "kube-system"
    pod = _pod(prod_graph)["spec"]
    [container] = pod["containers"]
    neuron_pools = [p for p in platform.node_pools if (p.accelerator or "").startswith("aws-")]
    assert neuron_pools, "prod declares a Trainium pool"
    images = {platform.pool_profile(p).neuron_monitor_image for p in neuron_pools}
    assert images == {container["image"]} and "@sha256:" in container["image"]
    for pool in platform.node_pools:
        group = prod_graph.named(f"{platform.name}-{pool.name}-ng").inputs
        scheduled = _selects(pod["affinity"], group["labels"]) and all(
            _tolerates(pod["tolerations"], taint) for taint in group.get("taints", [])
        )
        assert scheduled == (pool in neuron_pools), f"neuron-monitor on {pool.name}: {scheduled}"
    # It tolerates the Neuron pools' taints and nothing broader.
    neuron_taints = {
        (t["key"], t["value"], _EFFECTS[t["effect"]])
        for p in neuron_pools
        for t in prod_graph.named(f"{platform.name}-{p.name}-ng").inputs["taints"]
    }
    assert {(t.get("key"), t.get("value"), t.get("effect")) for t in pod["tolerations"]} == neuron_taints


def test_pod_monitor_selects_the_exporter_pods_and_its_port(prod_graph: OfflineGraph) -> None:
    template = _pod(prod_graph)
    namespace = _daemon_set(prod_graph).inputs["metadata"]["namespace"]
    [monitor] = [m for m in prod_graph.by_type("kubernetes:monitoring.coreos.com/v1:PodMonitor")
                 if m.inputs["metadata"]["name"] == "neuron-monitor"]
    spec = monitor.inputs["spec"]
    assert namespace in spec["namespaceSelector"]["matchNames"]
    pod_labels = template["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= pod_labels.items()
    assert _daemon_set(prod_graph).inputs["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    port_names = {p["name"] for c in template["spec"]["containers"] for p in c.get("ports", [])}
    assert {e["port"] for e in spec["podMetricsEndpoints"]} <= port_names
    # The alert reads the counter under the name the exporter serves it.
    [rule] = prod_graph.by_type("kubernetes:monitoring.coreos.com/v1:PrometheusRule")
    [alert] = [r for r in rule.inputs["spec"]["groups"][0]["rules"] if r["alert"] == "NeuronHardwareError"]
    assert alert["expr"].startswith("increase(hardware_ecc_events_total{")


def test_exporter_is_guaranteed_probed_and_privileged_in_nothing_else(prod_graph: OfflineGraph) -> None:
    pod = _pod(prod_graph)["spec"]
    [container] = pod["containers"]
    resources = container["resources"]
    assert resources["requests"] == resources["limits"] and set(resources["limits"]) == {"cpu", "memory"}
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["port"] == container["ports"][0]["name"] == "metrics", probe
    assert container["securityContext"] == {"privileged": True}
    assert not {"volumes", "hostNetwork", "hostPID", "hostIPC"} & set(pod)
    assert "volumeMounts" not in container
    assert pod["automountServiceAccountToken"] is False
    accounts = {
        (r.inputs["metadata"]["namespace"], r.inputs["metadata"]["name"])
        for r in prod_graph.by_type("kubernetes:core/v1:ServiceAccount")
    }
    assert ("kube-system", pod["serviceAccountName"]) in accounts


def test_exporter_manifest_is_validated_strictly(prod_graph: OfflineGraph) -> None:
    report = validate_graph(prod_graph, load_stack("prod").platform.kubernetes_version)
    assert report.errors == []
    validated = {label.split(" ")[0] for label in report.validated}
    assert {"DaemonSet/neuron-monitor", "ServiceAccount/neuron-monitor"} <= validated


def test_no_exporter_without_neuron_pools(dev_graph: OfflineGraph) -> None:
    platform = load_stack("dev").platform
    assert not any((p.accelerator or "").startswith("aws-") for p in platform.node_pools)
    names = {r.inputs.get("metadata", {}).get("name") for r in dev_graph.resources if r.type.startswith("kubernetes:")}
    assert "neuron-monitor" not in names  # neither the DaemonSet nor its PodMonitor
    assert not dev_graph.by_type("kubernetes:apps/v1:DaemonSet")
