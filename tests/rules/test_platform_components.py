"""The host-access rules exempt only the platform's own device monitor, by identity (kind, namespace,
name, image pinned by digest), never a workload because of a label it carries."""

from __future__ import annotations

import pytest

from accelplane.rules import types as t
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes import k8s_no_host_namespaces, k8s_no_host_path, k8s_no_privileged_containers
from accelplane.rules.kubernetes.platform_components import NEURON_MONITOR, privileged_component, repository_name
from accelplane.rules.view import Resource
from tests.rules.cases import DEVICE_PLUGIN, DIGEST, PRIVILEGED, container, deployment, neuron_monitor

MIRROR = "444455556666.dkr.ecr.us-west-2.amazonaws.com/neuron/neuron-monitor@sha256:" + "c" * 64


def _privileged_findings(resource: Resource) -> list[str]:
    findings, skipped = run_rule(k8s_no_privileged_containers.RULE, ReferenceGraph([resource]))
    assert skipped == 0
    return [f.message for f in findings]


@pytest.mark.parametrize("monitor", [neuron_monitor(), neuron_monitor(image=MIRROR)], ids=["public-ecr", "mirror"])
def test_the_platforms_neuron_monitor_may_be_privileged(monitor: Resource) -> None:
    assert privileged_component(monitor) is NEURON_MONITOR
    assert _privileged_findings(monitor) == []


def test_its_identity_ignores_labels() -> None:
    unlabelled = neuron_monitor(labels=None)
    assert privileged_component(unlabelled) is NEURON_MONITOR


NOT_THE_PLATFORMS = {
    # The hole this closes: any DaemonSet labelled as a device plugin or driver escaped.
    "privileged device-plugin-labelled DaemonSet in a workload namespace": deployment(
        "gpu-plugin", container(**PRIVILEGED), kind=t.K8S_DAEMON_SET, labels=DEVICE_PLUGIN),
    "privileged driver-labelled DaemonSet in a workload namespace": deployment(
        "driver", container(**PRIVILEGED), kind=t.K8S_DAEMON_SET, labels={"app.kubernetes.io/component": "driver"}),
    "device-plugin-labelled DaemonSet in kube-system with a foreign image": deployment(
        "nvidia-device-plugin", container(**PRIVILEGED), kind=t.K8S_DAEMON_SET, labels=DEVICE_PLUGIN,
        namespace="kube-system"),
    "neuron-monitor in kube-system on a floating tag": neuron_monitor(
        image="public.ecr.aws/neuron/neuron-monitor:1.3.0"),
    "neuron-monitor in kube-system running a foreign image by digest": neuron_monitor(
        image=f"registry.example.com/miner{DIGEST}"),
    "neuron-monitor with a second, foreign container": neuron_monitor(
        "neuron-monitor", {"name": "neuron-monitor", "image": MIRROR, **PRIVILEGED},
        {"name": "sidecar", "image": f"registry.example.com/sidecar{DIGEST}", **PRIVILEGED}),
    "neuron-monitor outside kube-system": neuron_monitor(namespace="monitoring"),
    "neuron-monitor's image under another name in kube-system": deployment(
        "exporter", {"name": "exporter", "image": MIRROR, **PRIVILEGED}, kind=t.K8S_DAEMON_SET,
        namespace="kube-system"),
    "neuron-monitor as a Deployment, not a DaemonSet": deployment(
        "neuron-monitor", {"name": "neuron-monitor", "image": MIRROR, **PRIVILEGED}, namespace="kube-system"),
}


@pytest.mark.parametrize("scenario", NOT_THE_PLATFORMS)
def test_a_privileged_pod_that_is_not_the_platforms_component_fails(scenario: str) -> None:
    resource = NOT_THE_PLATFORMS[scenario]
    assert privileged_component(resource) is None
    messages = _privileged_findings(resource)
    assert messages and all("is privileged" in m for m in messages), messages


def test_the_message_says_why_a_look_alike_is_not_exempt() -> None:
    [floating] = _privileged_findings(NOT_THE_PLATFORMS["neuron-monitor in kube-system on a floating tag"])
    assert "not the platform's neuron-monitor" in floating and "neuron_monitor_image" in floating
    [labelled] = _privileged_findings(
        NOT_THE_PLATFORMS["privileged device-plugin-labelled DaemonSet in a workload namespace"])
    assert "app.kubernetes.io/component=device-plugin exempts nothing" in labelled


@pytest.mark.parametrize(
    ("rule", "pod", "expect"),
    [
        (k8s_no_host_namespaces.RULE, {"hostNetwork": True}, "hostNetwork"),
        (k8s_no_host_path.RULE, {"volumes": [{"name": "dev", "hostPath": {"path": "/dev"}}]}, "/dev"),
    ],
    ids=["host-namespaces", "host-path"],
)
def test_host_namespaces_and_paths_exempt_no_one(rule, pod: dict, expect: str) -> None:
    labelled = deployment("gpu-plugin", container(), kind=t.K8S_DAEMON_SET, labels=DEVICE_PLUGIN,
                          namespace="kube-system", **pod)
    monitor = neuron_monitor(**pod)
    findings, _ = run_rule(rule, ReferenceGraph([labelled, monitor]))
    assert sorted(f.name for f in findings) == ["gpu-plugin", "neuron-monitor"]
    assert all(expect in f.message for f in findings)


@pytest.mark.parametrize(
    ("image", "name"),
    [
        ("public.ecr.aws/neuron/neuron-monitor:1.3.0", "neuron-monitor"),
        (MIRROR, "neuron-monitor"),
        ("registry.local:5000/neuron-monitor@sha256:" + "d" * 64, "neuron-monitor"),
        ("neuron-monitor", "neuron-monitor"),
        ("registry.example.com/team/not-neuron-monitor:1@sha256:" + "e" * 64, "not-neuron-monitor"),
    ],
)
def test_repository_name_is_the_last_path_segment_without_tag_or_digest(image: str, name: str) -> None:
    assert repository_name(image) == name
