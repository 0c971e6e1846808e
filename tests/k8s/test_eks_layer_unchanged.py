"""The Kubernetes layer of the AWS stacks is what it was before the layer learned GKE (issue 13).

`snapshots/eks-<stack>-kubernetes-layer.json` holds every resource of the layer in dev's and prod's
`preview --json` (the Kubernetes provider, `accelplane:k8s:*` components and everything under them,
the load balancer controller's IAM role included) as recorded before the split into `ClusterFacts`:
type, parent, wire-format inputs, sorted dependencies and provider (updated for weighted backends, issue
14: per-backend objects and labels, the inference PodMonitor, the service component's props; issue 28:
the launcher reads the JobSet's node count, Kueue leaves CPU, memory and EFA to the quotas; issue 33: per-pool
idle alerts, the pool label allow-listed in kube-state-metrics, the Neuron series' node; issue 35: hardened
inference pods, no service-account token). A
deliberate change to the EKS layer updates the snapshot in the same commit (the test prints what
differs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accelplane.engine.graph import OfflineGraph

SNAPSHOTS = Path(__file__).parent / "snapshots"


def kubernetes_layer(graph: dict[str, Any]) -> dict[str, Any]:
    """URN -> what preview --json records of each resource of the Kubernetes layer."""
    return {
        r["urn"]: {
            "type": r["type"],
            "parent": r["parent"],
            "inputs": r["inputs"],
            "dependencies": sorted(r["dependencies"]),
            "provider": r["provider"],
        }
        for r in graph["resources"]
        if r["type"].startswith(("kubernetes:", "accelplane:k8s:", "pulumi:providers:kubernetes"))
        or "accelplane:k8s:" in r["urn"]
    }


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_eks_kubernetes_layer_matches_its_snapshot(
    stack: str, dev_graph: OfflineGraph, prod_graph: OfflineGraph
) -> None:
    graph = {"dev": dev_graph, "prod": prod_graph}[stack]
    now = kubernetes_layer(json.loads(json.dumps(graph.to_json(), sort_keys=True)))
    expected = json.loads((SNAPSHOTS / f"eks-{stack}-kubernetes-layer.json").read_text())
    assert sorted(set(now) - set(expected)) == [], "new resources in the EKS layer"
    assert sorted(set(expected) - set(now)) == [], "resources gone from the EKS layer"
    assert [urn for urn in expected if now[urn] != expected[urn]] == [], "resources changed in the EKS layer"
