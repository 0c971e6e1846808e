"""The Kubernetes rules pass on what the layer creates for dev and prod, and catch a badly declared
service: a hand-written Deployment with a tag instead of a digest, no probes, privileged, host
paths, and accelerator requests different from limits."""

from __future__ import annotations

import copy
from dataclasses import replace

from accelplane.engine.offline import Graph
from accelplane.rules.engine import evaluate
from accelplane.rules.graph import Graph as RuleGraph
from accelplane.rules.sources import from_offline_graph


def _kubernetes_findings(graph: Graph, environment: str) -> set[str]:
    evaluation = evaluate(RuleGraph(from_offline_graph(graph), stack=graph.stack, environment=environment))
    return {f.rule.id for f in evaluation.findings if f.rule.id.startswith("AP-K8S-")}


def test_layer_passes_the_kubernetes_rules(dev_graph: Graph, prod_graph: Graph) -> None:
    assert _kubernetes_findings(dev_graph, "dev") == set()
    assert _kubernetes_findings(prod_graph, "prod") == set()


def test_a_badly_declared_service_trips_the_kubernetes_rules(prod_graph: Graph) -> None:
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
    bad = Graph(stack="prod", resources=resources)
    found = _kubernetes_findings(bad, "prod")
    assert {"AP-K8S-001", "AP-K8S-002", "AP-K8S-003", "AP-K8S-004", "AP-K8S-005", "AP-K8S-006"} <= found, found
