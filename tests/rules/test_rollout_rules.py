"""The rollout rules beyond their fixtures: GKE node pools and Neuron pools, what AP-RO-001 leaves to
AP-VER-001, and that every input `check` takes (preview graph, plan, state) and the CrossGuard pack
judge the `accelplane:k8s:InferenceService` component."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from accelplane.cli import main
from accelplane.clouds.gcp import resource_types as gcp_types
from accelplane.rules import types as t
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import rule_by_id
from tests.rules.cases import (
    IMAGE_CUDA13,
    IMAGE_L40S,
    backend,
    canary_rollout,
    infer_pool,
    inference_service,
    node_group,
    res,
)

RO_001 = rule_by_id("AP-RO-001")
RO_002 = rule_by_id("AP-RO-002")
assert RO_001 is not None and RO_002 is not None
L4_LABELS = {
    "accelplane.io/pool": "infer-l4", "accelplane.io/purpose": "inference", "accelplane.io/accelerator": "nvidia-l4",
    "accelplane.io/profile": "l4", "versions.accelplane.io/driver": "570.172.08",
    "versions.accelplane.io/kernel-module": "open", "versions.accelplane.io/cuda": "12.8",
}


def _messages(rule, *resources) -> list[tuple[str, str]]:
    findings, _ = run_rule(rule, ReferenceGraph(list(resources)))
    return [(f.name, f.message) for f in findings]


def test_a_backend_on_a_gke_node_pool_is_judged_from_its_node_config_labels() -> None:
    pool = res(gcp_types.GKE_NODE_POOL, "acme-infer-l4-pool", {"nodeConfig": {"machineType": "g2-standard-8",
                                                                     "labels": L4_LABELS}})
    clean = inference_service("acme-svc-chat", backend("l4", 100, pool="infer-l4"))
    assert _messages(RO_001, pool, clean) == []
    canary = inference_service("acme-svc-chat", backend("l4", 95, pool="infer-l4"),
                               backend("next", 5, pool="infer-l4", profile="cuda13", versions=IMAGE_CUDA13),
                               rollout=canary_rollout("l4", "next"))
    messages = _messages(RO_001, pool, canary)
    assert messages and all(name == "acme-svc-chat" for name, _ in messages)
    assert messages[0][1].startswith("backend next (profile cuda13) on pool infer-l4: cuda 13.0 with driver "
                                     "570.172.08: nvidia.cuda-driver: driver 570.172.08 is too old for CUDA 13.0")
    assert "(source: https://" in messages[0][1]


def test_a_neuron_canary_whose_framework_is_not_of_its_sdk_is_reported() -> None:
    pool = node_group("infer-inf2", accelerator="aws-inferentia2", instance="inf2.xlarge", versions={
        "versions.accelplane.io/neuron-sdk": "2.31.1", "versions.accelplane.io/os": "amazon-linux-2023"})
    image = {"neuron_sdk": "2.31.1", "torch_neuronx": "2.9.0.2.15.32035", "torch": "2.9.0", "python": "3.11"}
    good = inference_service("acme-svc-chat", backend("inf2", 100, pool="infer-inf2", profile="inf2", versions=image))
    assert _messages(RO_001, pool, good) == []
    stale = {**image, "torch_neuronx": "2.8.0.2.10.13553", "torch": "2.8.0"}
    bad = inference_service("acme-svc-chat", backend("inf2", 100, pool="infer-inf2", profile="old", versions=stale))
    [(_, message)] = _messages(RO_001, pool, bad)
    assert "torch_neuronx 2.8.0.2.10.13553 with neuron_sdk 2.31.1: neuron.torch-neuronx" in message


def test_what_the_pool_has_on_its_own_is_left_to_ap_ver_001() -> None:
    # The pool's own profile is broken (CUDA 13.0 on R570); a backend relying on that profile adds nothing new.
    labels = {"versions.accelplane.io/cuda": "13.0", "versions.accelplane.io/torch": "2.9.0"}
    pool = infer_pool()
    pool = replace(pool, props={**pool.props, "labels": {**pool.props["labels"], **labels}})
    same = inference_service("acme-svc-chat", backend("stable", 100, versions={**IMAGE_L40S, "cuda": "13.0",
                                                                                "torch": "2.9.0"}))
    assert _messages(RO_001, pool, same) == []
    assert _messages(rule_by_id("AP-VER-001"), pool, same)  # reported there, once


def test_a_backend_whose_pool_is_not_in_the_graph_or_runs_no_accelerator_is_not_judged() -> None:
    service = inference_service("acme-svc-chat", backend("next", 100, versions=IMAGE_CUDA13))
    assert _messages(RO_001, service) == []
    cpu = node_group("infer-l40s", accelerator="none", instance="m7i.xlarge")
    assert _messages(RO_001, cpu, service) == []


# ------------------------------------------------------------------ every input check takes


@pytest.fixture(scope="module")
def prod_plan(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("prod-plan") / "prod.json"
    assert main(["preview", "--stack", "prod", "--json", str(path)]) == 0
    return json.loads(path.read_text())


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]]]:
    capsys.readouterr()
    code = main(["check", *args, "--format", "json"])
    return code, [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"].startswith("AP-RO")]


def test_the_preview_graph_carries_the_service_and_the_rules_find_it_clean(prod_plan: dict[str, Any]) -> None:
    services = [r for r in prod_plan["resources"] if r["type"] == t.INFERENCE_SERVICE]
    assert services and all(isinstance(s["inputs"].get("backends"), list) for s in services)


def test_a_plan_whose_canary_holds_no_replicas_fails_ap_ro_002(
    prod_plan: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads(json.dumps(prod_plan))
    service = next(r for r in document["resources"] if r["type"] == t.INFERENCE_SERVICE
                   and any(b["weight"] not in (0, 100) for b in r["inputs"]["backends"]))
    weighted = next(b for b in service["inputs"]["backends"] if b["weight"] > 0)
    weighted["minReplicas"] = 0  # a hand edit: the declaration's model would refuse nothing here
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(document))
    code, findings = _check(capsys, "--plan", str(path), "--stack", "prod")
    assert code == 1
    assert [(f["rule"], f["name"]) for f in findings] == [("AP-RO-002", service["name"])]
    assert f"backend {weighted['name']} takes {weighted['weight']}% of the requests with min_replicas 0" in \
        findings[0]["message"]


@pytest.mark.parametrize("kept_as", ["inputs", "outputs"])
def test_a_state_export_is_judged_like_the_graph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kept_as: str
) -> None:
    """A `pulumi stack export` keeps a component's props as its inputs or only as its registered outputs
    (the component registers its props as outputs too); AP-RO-001 joins them with the pool's either way."""
    pool, service = infer_pool(), inference_service("acme-svc-chat", backend("stable", 95), backend(
        "next", 5, profile="cuda13", versions=IMAGE_CUDA13), rollout=canary_rollout())
    urn = "urn:pulumi:prod::accelplane::{}::{}"
    resources = [{"urn": urn.format(r.type, r.name), "type": r.type, "custom": r.type != t.INFERENCE_SERVICE,
                  "id": r.id or "",
                  "inputs": dict(r.props) if kept_as == "inputs" or r.type != t.INFERENCE_SERVICE else {},
                  "outputs": dict(r.props)} for r in (pool, service)]
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"version": 3, "deployment": {"manifest": {}, "resources": resources}}))
    code, findings = _check(capsys, "--state", str(path))
    assert code == 1
    assert {(f["rule"], f["name"]) for f in findings} == {("AP-RO-001", "acme-svc-chat")}


# ------------------------------------------------------------------ CrossGuard


def test_the_pack_judges_the_component_over_the_analyzer_protocol() -> None:
    from tests.policies.pack_client import analyze_request, stack_request, start_pack

    pool = infer_pool()
    service = inference_service("acme-svc-chat", backend("stable", 95), backend(
        "next", 5, min_replicas=0, profile="cuda13", versions=IMAGE_CUDA13), rollout=canary_rollout())
    pack = start_pack()
    try:
        # Analyze: one resource, its inputs (numbers arrive as doubles).
        diagnostics = pack.stub.Analyze(analyze_request(service)).diagnostics
        assert [d.policyName for d in diagnostics] == ["AP-RO-002"]
        assert diagnostics[0].message.endswith(
            "backend next takes 5% of the requests with min_replicas 0: its share goes to no pods")
        # AnalyzeStack: the pool's labels and the component's props (its outputs, when it registers them).
        stack = pack.stub.AnalyzeStack(stack_request([pool, service])).diagnostics
        assert {d.policyName for d in stack} == {"AP-RO-001"}
        assert all(d.urn == service.urn for d in stack)
    finally:
        pack.close()
