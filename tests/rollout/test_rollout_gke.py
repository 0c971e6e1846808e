"""`accelplane rollout` on GKE: the live HTTPRoute weights, read and set through the Kubernetes API
reached the way users without gke-gcloud-auth-plugin reach it: the cluster's endpoint and CA from
`clusters.get` (the Google API fake), and a Google access token from a real service-account key
whose token endpoint is the fake's. The Kubernetes side is tests/support/kubernetes_api_fake (the
module says why no API server runs here): HTTPS with the cluster's own CA, the bearer token
checked, every write validated against the Gateway API CRD schema."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from accelplane.program import offline_graph
from tests.support.gcp_platform import deploy
from tests.support.google_api_fake.key_file import key_file
from tests.support.kubernetes_api_fake import kubernetes_api
from tests.support.models.classifier import requests
from tests.support.prometheus.managed_front import TOKEN, managed_front
from tests.verify_gcp.conftest import fake, gcs, gcs_server  # noqa: F401  (the Google fakes, as fixtures)

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = "projects/acme-ml-tpu-prod/locations/us-central1/clusters/acme-tpu"
ROUTE = "/apis/gateway.networking.k8s.io/v1/namespaces/inference/httproutes/llm-server"



def _condition(kind: str, status: str = "True", reason: str = "", message: str = "") -> dict:
    return {"type": kind, "status": status, "reason": reason or kind, "message": message,
            "lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": 1}


# What GKE's Gateway controller writes once it serves the route and the Gateway.
ACCEPTED = {"parents": [{"parentRef": {"name": "inference", "namespace": "accelplane-gateway"},
                         "controllerName": "networking.gke.io/gateway",
                         "conditions": [_condition("Accepted"), _condition("ResolvedRefs")]}]}
PROGRAMMED = {"conditions": [_condition("Accepted"), _condition("Programmed")]}


@pytest.fixture
def gke(fake, gcs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:  # noqa: F811
    deployment = deploy(fake, gcs, "tpu-prod")
    with kubernetes_api(tmp_path, TOKEN) as api:
        # What GKE reports once the control plane runs: its endpoint and the cluster CA.
        fake.state.resources[f"container/v1/v1/{CLUSTER}"].update(
            endpoint=api.url.removeprefix("https://"),
            masterAuth={"clusterCaCertificate": base64.b64encode(api.ca_pem).decode()},
        )
        for record in offline_graph(deployment.stack).resources:  # what `pulumi up` applied in the cluster
            if record.type.endswith((":HTTPRoute", ":Gateway")):
                obj = json.loads(json.dumps(record.inputs))
                if obj["kind"] == "HTTPRoute" and obj["metadata"]["name"] == "llm-server":
                    obj["status"] = ACCEPTED
                if obj["kind"] == "Gateway":
                    obj["status"] = PROGRAMMED
                api.put(obj)
        key = key_file(tmp_path, fake.url, "acme-ml-tpu-prod", "rollout")
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key))
        stack_dir = tmp_path / "stack"
        shutil.copytree(ROOT / "stacks", stack_dir / "stacks")
        shutil.copy(ROOT / "Pulumi.yaml", stack_dir / "Pulumi.yaml")
        api.stack_file = stack_dir / "stacks" / "Pulumi.tpu-prod.yaml"
        api.google = fake
        yield api


def _args(gke: Any, *extra: str) -> list[str]:
    return ["--stack-file", str(gke.stack_file), "--service", "llm-server",
            f"--api-endpoint=container={gke.google.endpoint('container', 'v1')}", *extra]


def _hand_edit(gke: Any, weights: dict[str, int]) -> None:
    """`kubectl edit httproute llm-server`: new weights, nothing else."""
    route = gke.get(ROUTE)
    for ref in route["spec"]["rules"][0]["backendRefs"]:
        ref["weight"] = weights[ref["name"]]
    gke.put(route)


def _declared_weights(path: Path) -> dict[str, int]:
    stack = yaml.safe_load(path.read_text())
    service = stack["config"]["accelplane:platform"]["kubernetes"]["inference_services"][0]
    return {backend["name"]: backend["weight"] for backend in service["backends"]}


def test_status_shows_the_live_weights_of_a_hand_edited_route(gke, metrics, rollout):
    _hand_edit(gke, {"llm-server-h100": 50, "llm-server-v5e": 50})
    result = rollout("status", *_args(gke, "--prometheus-url", metrics.url, "--format", "json"))
    assert result.code == 0, result.err
    report = json.loads(result.out)
    live = {b["name"]: (b["declared_weight"], b["live_weight"]) for b in report["backends"]}
    assert live == {"h100": (90, 50), "v5e": (10, 50)}, report["live"]
    assert report["live"]["read"] is True
    assert report["live"]["route_state"] == ("route on inference: Accepted, ResolvedRefs; "
                                             "Gateway accelplane-gateway/inference: Programmed")
    assert ("GET", ROUTE) in gke.requests


def test_status_says_when_the_gateway_does_not_accept_the_route(gke, metrics, rollout):
    route = gke.get(ROUTE)
    route["status"]["parents"][0]["conditions"][0] = _condition(
        "Accepted", "False", "NotAllowedByListeners", "no listener allows routes from namespace inference")
    gke.put(route)
    result = rollout("status", *_args(gke, "--prometheus-url", metrics.url))
    assert result.code == 0, result.err
    assert ("live route: route on inference: NOT Accepted (NotAllowedByListeners: no listener allows routes "
            "from namespace inference), ResolvedRefs") in result.out


def test_advance_refuses_when_the_live_route_differs_and_writes_nothing(gke, rollout):
    _hand_edit(gke, {"llm-server-h100": 50, "llm-server-v5e": 50})
    before = gke.stack_file.read_text()
    result = rollout("advance", *_args(gke, "--prometheus-url", "http://127.0.0.1:9"))
    assert result.code == 1, result.out + result.err
    assert "HTTPRoute inference/llm-server" in result.err and "h100 50%, v5e 50%" in result.err
    assert "declares h100 90%, v5e 10%" in result.err and "nothing written" in result.err
    assert gke.stack_file.read_text() == before


def test_abort_with_apply_now_patches_the_route_and_writes_the_file(gke, rollout):
    result = rollout("abort", *_args(gke, "--apply-now"))
    assert result.code == 0, result.out + result.err
    refs = {ref["name"]: ref["weight"] for ref in gke.get(ROUTE)["spec"]["rules"][0]["backendRefs"]}
    assert refs == {"llm-server-h100": 100, "llm-server-v5e": 0}
    assert _declared_weights(gke.stack_file) == {"h100": 100, "v5e": 0}
    assert "applied live: HTTPRoute inference/llm-server" in result.out


def test_a_route_the_credentials_may_not_patch_changes_nothing(gke, rollout):
    gke.forbid("patch")
    before = gke.stack_file.read_text()
    result = rollout("abort", *_args(gke, "--apply-now"))
    assert result.code == 2
    assert 'cannot patch resource "httproutes"' in result.err and "nothing written" in result.err
    assert gke.stack_file.read_text() == before


def test_aws_options_are_refused_on_google_cloud(gke, rollout):
    result = rollout("abort", *_args(gke, "--apply-now", "--profile", "prod"))
    assert result.code == 2 and "--profile" in result.err and "not used on Google Cloud" in result.err


def test_a_kubeconfig_context_with_an_exec_plugin_is_refused_with_why(gke, rollout, tmp_path, monkeypatch):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "clusters": [{"name": "gke", "cluster": {"server": gke.url}}],
        "users": [{"name": "me", "user": {"exec": {"command": "gke-gcloud-auth-plugin"}}}],
        "contexts": [{"name": "gke_acme", "context": {"cluster": "gke", "user": "me"}}],
    }))
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    result = rollout("abort", *_args(gke, "--apply-now", "--context", "gke_acme"))
    assert result.code == 2
    assert "gke-gcloud-auth-plugin" in result.err and "leave out --context" in result.err


def test_a_kubeconfig_context_with_a_token_reaches_the_cluster(gke, rollout, tmp_path, monkeypatch):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({
        "clusters": [{"name": "gke", "cluster": {"server": gke.url,
                                                 "certificate-authority-data": base64.b64encode(gke.ca_pem).decode()}}],
        "users": [{"name": "me", "user": {"token": TOKEN}}],
        "contexts": [{"name": "ci", "context": {"cluster": "gke", "user": "me"}}],
    }))
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    result = rollout("abort", *_args(gke, "--apply-now", "--context", "ci"))
    assert result.code == 0, result.err
    assert "(context ci)" in result.out


def test_advance_refusal_as_json(gke, rollout):
    _hand_edit(gke, {"llm-server-h100": 70, "llm-server-v5e": 30})
    result = rollout("advance", *_args(gke, "--prometheus-url", "http://127.0.0.1:9", "--format", "json"))
    said = json.loads(result.out)
    assert result.code == 1 and said["exit_code"] == 1 and said["action"] == "refused"
    assert said["live"] == {"h100": 70, "v5e": 30} and said["declared"] == {"h100": 90, "v5e": 10}
    assert said["written"] is False


def test_abort_as_json_names_the_route_it_applied(gke, rollout):
    result = rollout("abort", *_args(gke, "--apply-now", "--format", "json"))
    said = json.loads(result.out)
    assert result.code == 0 and said["applied_live"].startswith("HTTPRoute inference/llm-server")


@pytest.fixture
def managed_prometheus(metrics):
    with managed_front(metrics.url, "acme-ml-tpu-prod") as front:
        yield front


def test_status_queries_managed_prometheus_with_a_google_token(gke, managed_prometheus, rollout):
    url, seen = managed_prometheus
    result = rollout("status", *_args(gke, "--prometheus-url", url, "--format", "json"))
    assert result.code == 0, result.err
    assert seen and set(seen) == {f"Bearer {TOKEN}"}
    assert json.loads(result.out)["live"]["read"] is True


def test_managed_prometheus_without_credentials_is_bad_input(gke, managed_prometheus, rollout, monkeypatch, tmp_path):
    url, seen = managed_prometheus
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "no-gcloud"))
    monkeypatch.setenv("NO_GCE_CHECK", "True")
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")
    monkeypatch.setenv("GCE_METADATA_IP", "127.0.0.1:9")
    monkeypatch.setenv("HOME", str(tmp_path))
    result = rollout("status", *_args(gke, "--prometheus-url", url, "--no-live"))
    assert result.code == 0  # --no-live reads nothing: no credentials needed
    result = rollout("status", *_args(gke, "--prometheus-url", url))
    assert result.code == 2
    assert "no Google Cloud credentials" in result.err and "--prometheus-url" in result.err
    assert seen == []


CLASSIFIER_PARITY = """            parity:
              protocol: open-inference
              model: classifier
              golden: {uri: parity/golden.jsonl}
              compare: {kind: classification}
              performance: {batch_sizes: [1], concurrency: 2, requests: 8, max_latency_ratio: 15,
                            min_throughput_ratio: 0.1, timeout: 60s}
              reports: parity/reports
"""


def _classifier_parity(gke: Any) -> None:
    """tpu-prod's llm-server compares text; this test serves it the onnx classifier instead, so its
    parity block is swapped for one that compares classes (the path through the cluster is the same)."""
    text = gke.stack_file.read_text()
    start = text.index("            parity:\n")
    end = text.index("              reports: parity/reports\n", start) + len("              reports: parity/reports\n")
    gke.stack_file.write_text(text[:start] + CLASSIFIER_PARITY + text[end:])
    (gke.stack_file.parent / "requests.jsonl").write_text("\n".join(json.dumps(r) for r in requests(16)) + "\n")


def test_parity_reaches_each_backend_through_its_service_proxy(gke, servers, rollout):
    """No --baseline-url or --canary-url: the Kubernetes API's Service proxy, as users run it without
    a port-forward; the weighted HTTPRoute (and the users behind it) never see the parity load."""
    _classifier_parity(gke)
    gke.services["inference/llm-server-h100:8000"] = servers["baseline"]
    gke.services["inference/llm-server-v5e:8000"] = servers["faithful"]
    base = ["--stack-file", str(gke.stack_file), "--service", "llm-server",
            f"--api-endpoint=container={gke.google.endpoint('container', 'v1')}"]
    recorded = rollout("parity", *base, "--record", "--requests", str(gke.stack_file.parent / "requests.jsonl"))
    assert recorded.code == 0, recorded.err
    assert "Service inference/llm-server-h100:8000" in recorded.out
    checked = rollout("parity", *base, "--format", "json")
    assert checked.code == 0, checked.out + checked.err
    assert json.loads(checked.out)["where"].startswith("Service inference/llm-server-v5e:8000")
    proxied = {path for verb, path in gke.requests if verb == "POST"}
    assert proxied == {
        "/api/v1/namespaces/inference/services/llm-server-h100:8000/proxy/v2/models/classifier/infer",
        "/api/v1/namespaces/inference/services/llm-server-v5e:8000/proxy/v2/models/classifier/infer",
    }
    assert not any(path.endswith("/httproutes/llm-server") and verb != "GET" for verb, path in gke.requests)


def test_parity_without_rbac_on_the_service_proxy_is_bad_input(gke, servers, rollout):
    _classifier_parity(gke)
    gke.forbid("create")
    result = rollout("parity", "--stack-file", str(gke.stack_file), "--service", "llm-server", "--record",
                     "--requests", str(gke.stack_file.parent / "requests.jsonl"),
                     f"--api-endpoint=container={gke.google.endpoint('container', 'v1')}")
    assert result.code == 2 and 'cannot create resource "services/proxy"' in result.err


def test_golden_set_and_reports_in_cloud_storage(gke, gcs, servers, rollout):  # noqa: F811
    """gs:// golden set and reports, on the real gcp-storage-emulator, with the same credentials."""
    _classifier_parity(gke)
    gcs.client().buckets().insert(project="acme-ml-tpu-prod", body={"name": "acme-tpu-parity"}).execute()
    text = gke.stack_file.read_text().replace("{uri: parity/golden.jsonl}", "{uri: gs://acme-tpu-parity/golden.jsonl}")
    gke.stack_file.write_text(text.replace("reports: parity/reports", "reports: gs://acme-tpu-parity/reports"))
    base = ["--stack-file", str(gke.stack_file), "--service", "llm-server", f"--api-endpoint=storage={gcs.url}",
            f"--api-endpoint=container={gke.google.endpoint('container', 'v1')}"]
    recorded = rollout("parity", *base, "--record", "--requests", str(gke.stack_file.parent / "requests.jsonl"),
                       "--baseline-url", servers["baseline"])
    assert recorded.code == 0, recorded.err
    checked = rollout("parity", *base, "--canary-url", servers["faithful"], "--format", "json")
    assert checked.code == 0, checked.out + checked.err
    uri = json.loads(checked.out)["uri"]
    assert uri.startswith("gs://acme-tpu-parity/reports/llm-server/v5e/")
    stored = gcs.client().objects().get_media(bucket="acme-tpu-parity",
                                              object=uri.removeprefix("gs://acme-tpu-parity/")).execute()
    assert json.loads(stored)["verdict"] == "pass"
