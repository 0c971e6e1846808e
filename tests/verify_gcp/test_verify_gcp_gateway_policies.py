"""`verify` of the GKE Gateway's policies in the cluster (issue 49 item 4: the Gateway's authentication as
declared): each declared GCPBackendPolicy (Identity-Aware Proxy with its OAuth client, the Cloud Armor
policy), GCPGatewayPolicy and HealthCheckPolicy, read through the cluster's Kubernetes API as rollout
reaches it (endpoint and CA from `clusters.get`, a Google access token). The cluster side is
tests/support/kubernetes_api_fake (the module says why no API server runs here): HTTPS with the
cluster's own CA, the bearer token checked, every object validated against the pinned CRD schemas."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from google.oauth2.credentials import Credentials

from accelplane.program import offline_graph
from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import Deployment, deploy
from tests.support.kubernetes_api_fake import kubernetes_api

CLUSTER = "projects/acme-ml-tpu-prod/locations/us-central1/clusters/acme-tpu"
TOKEN = "ya29.verify-identity-token"
POLICY = "/apis/networking.gke.io/v1/namespaces/inference/gcpbackendpolicies/llm-server-v5e"
KINDS = (":GCPBackendPolicy", ":GCPGatewayPolicy", ":HealthCheckPolicy")


@pytest.fixture
def gke(fake, gcs, tmp_path: Path) -> Any:
    deployment = deploy(fake, gcs, "tpu-prod")
    with kubernetes_api(tmp_path, TOKEN) as api:
        # What GKE reports once the control plane runs: its endpoint and the cluster CA.
        cluster = fake.state.resources[f"container/v1/v1/{CLUSTER}"]
        cluster["endpoint"] = api.url.removeprefix("https://")
        cluster.setdefault("masterAuth", {})["clusterCaCertificate"] = base64.b64encode(api.ca_pem).decode()
        for record in offline_graph(deployment.stack).resources:  # what `pulumi up` applied in the cluster
            if record.type.endswith(KINDS):
                api.put(json.loads(json.dumps(record.inputs)))
        api.deployment = deployment
        yield api


def _verify(gke: Any, token: str = TOKEN) -> Any:
    deployment: Deployment = gke.deployment
    # The identity verify runs as, with the token GKE's API server takes for it.
    return deployment.verify(clients=deployment.clients(credentials=Credentials(token=token)))


def _policy_results(report: Any) -> list[Any]:
    return [r for r in report.results if r.type.endswith(KINDS)]


def test_the_declared_policies_verify_clean_in_the_cluster(gke: Any) -> None:
    report = _verify(gke)

    results = _policy_results(report)
    assert results and {(r.check, r.status) for r in results} == {(CheckId.drift_matched, Status.passed)}
    assert ("GET", POLICY) in gke.requests and {verb for verb, _ in gke.requests} == {"GET"}  # reads only
    assert not [r for r in report.results if r.check == CheckId.coverage and "networking.gke.io" in r.message]


def test_identity_aware_proxy_turned_off_by_hand_is_drift(gke: Any) -> None:
    policy = gke.get(POLICY)  # `kubectl edit gcpbackendpolicy llm-server-v5e`: IAP off
    policy["spec"]["default"]["iap"]["enabled"] = False
    gke.put(policy)

    report = _verify(gke)

    [changed] = [r for r in _policy_results(report) if r.check == CheckId.drift_changed]
    assert changed.path == "spec.default.iap.enabled" and changed.status is Status.failed
    assert report.failed


def test_a_deleted_backend_policy_is_missing(gke: Any) -> None:
    del gke.objects[POLICY]  # `kubectl delete gcpbackendpolicy llm-server-v5e`: no IAP, no Cloud Armor

    report = _verify(gke)

    assert (CheckId.drift_missing, Status.failed) in {(r.check, r.status) for r in _policy_results(report)}


def test_a_cluster_api_that_refuses_leaves_the_policies_not_verified_with_why(gke: Any) -> None:
    gke.forbid("get")  # no RBAC for the identity verify runs as

    report = _verify(gke)

    assert _policy_results(report) == [] or all(r.check == CheckId.coverage for r in _policy_results(report))
    [coverage] = [r for r in report.results if r.check == CheckId.coverage and ":GCPBackendPolicy" in r.message]
    assert coverage.status is Status.skipped
    assert "the cluster's API was not read" in coverage.message and "forbidden" in coverage.message
    assert not report.failed, [f"{r.check} {r.name}: {r.message}" for r in report.results if r.status is Status.failed]
