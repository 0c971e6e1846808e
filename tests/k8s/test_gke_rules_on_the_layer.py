"""The GCP load balancer rules and the Kubernetes rules judge what the layer creates on GKE: the Gateway,
its routes and policies pass AP-GLB-003/005, the workloads pass AP-K8S-*, and taking a policy away or
declaring a pod badly trips the rule that guards it."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from accelplane.engine.graph import OfflineGraph, RecordedResource, from_offline_graph
from accelplane.rules.engine import evaluate
from accelplane.rules.graph import ReferenceGraph


@pytest.fixture(scope="module")
def tpu_prod(tpu_prod_graph: OfflineGraph) -> OfflineGraph:
    return tpu_prod_graph  # built once per test process (tests/conftest.py)


def _findings(graph: OfflineGraph) -> dict[str, list[str]]:
    evaluation = evaluate(ReferenceGraph(from_offline_graph(graph), stack=graph.stack, environment="prod"))
    found: dict[str, list[str]] = {}
    for finding in evaluation.findings:
        found.setdefault(finding.rule.id, []).append(finding.message)
    return found


def _without(graph: OfflineGraph, kind: str) -> OfflineGraph:
    return OfflineGraph(stack=graph.stack, resources=[r for r in graph.resources if not r.type.endswith(f":{kind}")])


def test_the_layer_passes_the_gateway_and_kubernetes_rules(tpu_prod: OfflineGraph) -> None:
    found = _findings(tpu_prod)
    assert {rule for rule in found if rule.startswith(("AP-K8S-", "AP-GLB-"))} == set(), found


def test_a_service_without_its_backend_policy_has_no_cloud_armor(tpu_prod: OfflineGraph) -> None:
    found = _findings(_without(tpu_prod, "GCPBackendPolicy"))
    assert any("inference/llm-server" in message for message in found.get("AP-GLB-003", [])), found


def test_a_gateway_without_its_gateway_policy_falls_back_to_tls10(tpu_prod: OfflineGraph) -> None:
    found = _findings(_without(tpu_prod, "GCPGatewayPolicy"))
    assert "AP-GLB-005" in found, found


def _with_tpu_deployment(graph: OfflineGraph) -> OfflineGraph:
    resources: list[RecordedResource] = []
    for resource in graph.resources:
        if resource.type == "kubernetes:apps/v1:Deployment":
            inputs = copy.deepcopy(resource.inputs)
            container = inputs["spec"]["template"]["spec"]["containers"][0]
            container["image"] = "us-central1-docker.pkg.dev/acme/serving/jetstream:latest"
            container["resources"]["limits"]["google.com/tpu"] = "4"
            container["securityContext"] = {"privileged": True}
            resource = replace(resource, inputs=inputs)
        resources.append(resource)
    return OfflineGraph(stack=graph.stack, resources=resources)


def test_a_badly_declared_tpu_pod_trips_the_kubernetes_rules(tpu_prod: OfflineGraph) -> None:
    found = _findings(_with_tpu_deployment(tpu_prod))
    assert {"AP-K8S-001", "AP-K8S-004", "AP-K8S-005"} <= set(found), found
    assert any("google.com/tpu request 8 differs from limit 4" in m for m in found["AP-K8S-004"])
