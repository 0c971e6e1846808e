"""docs/kubernetes/rollout-rbac.yaml: valid RBAC objects that grant exactly the calls rollout makes
in the cluster (seen on the Kubernetes API fake in tests/rollout/test_rollout_gke.py)."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import yaml

RBAC = Path(__file__).resolve().parents[2] / "docs" / "kubernetes" / "rollout-rbac.yaml"
# (API group, resource, verb) of every request rollout sends to the API server:
# GET/PATCH httproutes, GET gateways, POST services/{name}:{port}/proxy.
CALLS = {("gateway.networking.k8s.io", "httproutes", "get"), ("gateway.networking.k8s.io", "httproutes", "patch"),
         ("gateway.networking.k8s.io", "gateways", "get"), ("", "services/proxy", "create")}


def test_the_shipped_rbac_validates_and_grants_exactly_the_calls_rollout_makes():
    documents = list(yaml.safe_load_all(RBAC.read_text()))
    for document in documents:
        kubernetes_validate.validate(document, "1.33.0", strict=True)
    granted = {(group, resource, verb) for d in documents if d["kind"] == "Role" for rule in d["rules"]
               for group in rule["apiGroups"] for resource in rule["resources"] for verb in rule["verbs"]}
    assert granted == CALLS
    roles = {d["metadata"]["name"] for d in documents if d["kind"] == "Role"}
    assert {d["roleRef"]["name"] for d in documents if d["kind"] == "RoleBinding"} == roles
