"""GKE's half of client authentication (issue 49): Identity-Aware Proxy on every exposed backend through
its GCPBackendPolicy, the custom OAuth client's secret copied from Secret Manager into a Kubernetes
Secret (never a stack file, never shown in a plan), and the callers granted IAP's access role; what
GKE cannot do is refused with its reason.

Expected values from Google's documents: GCPBackendPolicy `spec.default.iap` {enabled, clientID,
oauth2ClientSecret.name} and the Secret's key `key` (GKE, "Configure Identity-Aware Proxy" for Gateway);
roles/iap.httpsResourceAccessor ("IAP-secured Web App User", IAP "Managing access"); service accounts
as `serviceAccount:` members (IAM policy reference).
"""

from __future__ import annotations

import json

import pytest

from accelplane.config.loader import load_stack_text
from accelplane.engine.graph import OfflineGraph
from accelplane.errors import InputError
from accelplane.k8s.manifests import validate_graph
from tests.support.stack_files import stack_text

AUDIENCE = "123456789012-llmclients.apps.googleusercontent.com"
CALLER = "llm-gateway@acme-ml-apps.iam.gserviceaccount.com"
TPU_PROD = stack_text("tpu-prod")
OAUTH_SECRET = "          oauth_client_secret: iap-oauth-client\n"


def test_every_exposed_backend_is_behind_iap_with_the_oauth_client(tpu_prod_graph: OfflineGraph) -> None:
    policies = [r for r in tpu_prod_graph.by_type("kubernetes:networking.gke.io/v1:GCPBackendPolicy")]
    assert {p.inputs["spec"]["targetRef"]["name"] for p in policies} == {"llm-server-h100", "llm-server-v5e"}
    for policy in policies:
        assert policy.inputs["spec"]["default"]["iap"] == {
            "enabled": True, "clientID": AUDIENCE, "oauth2ClientSecret": {"name": "accelplane-iap-oauth-client"}}
    report = validate_graph(tpu_prod_graph, "1.33")
    assert report.ok, report.errors  # against the pinned networking.gke.io/v1 CRD, strictly


def test_the_oauth_client_secret_reaches_the_cluster_masked(tpu_prod_graph: OfflineGraph) -> None:
    secrets = [r for r in tpu_prod_graph.by_type("kubernetes:core/v1:Secret")
               if r.inputs["metadata"]["name"] == "accelplane-iap-oauth-client"]
    assert [(s.inputs["metadata"]["namespace"], s.inputs["type"]) for s in secrets] == [("inference", "Opaque")]
    assert secrets[0].inputs["stringData"] == "[secret]"
    # The mocks answer Secret Manager's access call with their own text: it must show nowhere in the plan.
    plan = json.dumps([r.inputs for r in tpu_prod_graph.resources])
    assert "mock-secret-of-" not in plan


def test_callers_may_pass_iap_and_nobody_else(tpu_prod_graph: OfflineGraph) -> None:
    members = [r.inputs for r in tpu_prod_graph.by_type("gcp:iap/webIamMember:WebIamMember")]
    assert members == [{"project": "acme-ml-tpu-prod", "role": "roles/iap.httpsResourceAccessor",
                        "member": f"serviceAccount:{CALLER}"}]


def _problems(text: str) -> list[str]:
    with pytest.raises(InputError) as raised:
        load_stack_text(text, path="Pulumi.tpu-prod.yaml", stack="tpu-prod")
    return [str(problem) for problem in raised.value.problems]


def _line(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_client_certificates_are_refused_on_gke_naming_the_cloud_that_has_them() -> None:
    text = TPU_PROD.replace(OAUTH_SECRET, OAUTH_SECRET + "        mutual_tls: {ca_bundle: s3://acme-pki/ca.pem}\n", 1)
    [problem] = _problems(text)
    assert problem.startswith(f"Pulumi.tpu-prod.yaml:{_line(text, '        mutual_tls:')}: "
                              "accelplane:platform.inference_endpoint.client_auth.mutual_tls: ")
    assert "cloud: aws" in problem


def test_iap_takes_google_signed_tokens_only() -> None:
    text = TPU_PROD.replace(OAUTH_SECRET, OAUTH_SECRET + "          issuer: https://login.example.com\n"
                            "          jwks_uri: https://login.example.com/keys\n", 1)
    [problem] = _problems(text)
    assert "Identity-Aware Proxy validates Google-signed tokens only: issuer https://accounts.google.com" in problem


def test_the_oauth_client_secret_must_be_a_declared_secret() -> None:
    text = TPU_PROD.replace(OAUTH_SECRET, "          oauth_client_secret: iap-oauth-clinet\n", 1)
    [problem] = _problems(text)
    assert problem == (f"Pulumi.tpu-prod.yaml:{_line(text, '          oauth_client_secret:')}: "
                       "accelplane:platform.inference_endpoint.client_auth.id_tokens.oauth_client_secret: no secret "
                       "named 'iap-oauth-clinet' under secrets: declare the secret that holds the Identity-Aware Proxy "
                       "OAuth client's secret; did you mean iap-oauth-client?")
