"""Rules that read node pools judge GKE node pools from their node labels exactly as EKS node groups:
an incompatible TPU profile fails `check` on a GCP stack, and pods scheduled by pool are recognised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelplane.cli import main
from tests.support.stack_files import write_variant


def _findings(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict]]:
    code = main(["check", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_an_incompatible_tpu_profile_fails_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # jaxlib must match jax (the jax[tpu] extra pins it); 0.9.0 with jax 0.10.2 does not exist together.
    old = '        jaxlib: "0.10.2"\n        libtpu: "0.0.42"\n        tpu_runtime: v2-alpha-tpuv5\n'
    path, _ = write_variant(tmp_path, old, old.replace('"0.10.2"', '"0.9.0"'), stack="tpu-prod")
    code, findings = _findings(capsys, "--stack-file", str(path))
    blocking = {(f["rule"], f["type"], f["name"]) for f in findings if f["enforcement"] == "mandatory"}
    assert code == 1
    assert blocking == {("AP-VER-001", "gcp:container/nodePool:NodePool", "acme-tpu-train-v5p-s0-pool"),
                        ("AP-VER-001", "gcp:container/nodePool:NodePool", "acme-tpu-train-v5p-s1-pool")}


def test_the_gke_machine_type_is_judged_against_the_accelerator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = tmp_path / "tpu-prod.json"
    assert main(["preview", "--stack", "tpu-prod", "--json", str(graph)]) == 0
    capsys.readouterr()
    document = json.loads(graph.read_text())
    pool = next(r for r in document["resources"] if r["name"] == "acme-tpu-train-h100-pool")
    pool["inputs"]["nodeConfig"]["machineType"] = "ct5p-hightpu-4t"  # a hand edit: a TPU machine under H100 labels
    graph.write_text(json.dumps(document))
    code, findings = _findings(capsys, "--plan", str(graph), "--stack", "tpu-prod")
    messages = [f["message"] for f in findings if f["rule"] == "AP-VER-001" and f["name"] == pool["name"]]
    assert code == 1 and messages and "ct5p-hightpu-4t carries google-tpu-v5p" in messages[0]


def test_an_inference_pod_on_a_gke_pool_is_recognised_by_the_pool_s_purpose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Deployment names its pool only by `accelplane.io/pool`: the GKE node pool's purpose label makes
    it an inference pod, so the probe rule (AP-K8S-006) judges it as it does on EKS."""
    graph = tmp_path / "tpu-prod.json"
    assert main(["preview", "--stack", "tpu-prod", "--json", str(graph)]) == 0
    capsys.readouterr()
    document = json.loads(graph.read_text())
    deployment = next(r for r in document["resources"] if r["type"] == "kubernetes:apps/v1:Deployment")
    for container in deployment["inputs"]["spec"]["template"]["spec"]["containers"]:
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            container.pop(probe, None)
    graph.write_text(json.dumps(document))
    code, findings = _findings(capsys, "--plan", str(graph), "--stack", "tpu-prod")
    assert code == 1 and ("AP-K8S-006", deployment["name"]) in {(f["rule"], f["name"]) for f in findings}
