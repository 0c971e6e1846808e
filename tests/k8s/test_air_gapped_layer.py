"""An air-gapped stack's Kubernetes layer (offline preview): every chart comes from the mirror's chart
repository (OCI charts from the mirror registry) and every digest-pinned image from `air_gap.registry`
with its digest kept; `check --plan` on that preview has no AP-AIR-001 finding. Without `air_gap`
the layer keeps the public sources."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from accelplane.cli import main

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "https://mirror.site.internal/accelplane"
REGISTRY = "registry.site.internal:5000"
KEYRING = "/etc/apt/keyrings/accelplane-mirror.gpg"
RELEASE = "kubernetes:helm.sh/v3:Release"
IMAGE = re.compile(r"[a-z0-9.:/_-]+@sha256:[0-9a-f]{64}")


def _preview(tmp_path: Path, capsys: pytest.CaptureFixture[str], air_gap: dict | None) -> tuple[Path, list[dict]]:
    tmp_path.mkdir(exist_ok=True)
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    if air_gap is not None:
        document["config"]["accelplane:platform"]["air_gap"] = air_gap
    stack = tmp_path / "Pulumi.prodair.yaml"
    stack.write_text(yaml.safe_dump(document, sort_keys=False))
    graph = tmp_path / "prodair.json"
    assert main(["preview", "--stack-file", str(stack), "--json", str(graph)]) == 0
    capsys.readouterr()
    return stack, json.loads(graph.read_text())["resources"]


def _images(resources: list[dict]) -> set[str]:
    return {image for r in resources for image in IMAGE.findall(json.dumps(r["inputs"]))}


def test_charts_and_images_come_from_the_mirror(tmp_path, capsys):
    _, public = _preview(tmp_path / "public", capsys, None)
    stack, resources = _preview(tmp_path, capsys, {"mirror_url": MIRROR, "signed_by": KEYRING, "registry": REGISTRY})
    releases = [r["inputs"] for r in resources if r["type"] == RELEASE]
    assert len(releases) >= 6
    for release in releases:
        if release["chart"].startswith("oci://"):
            assert release["chart"].startswith(f"oci://{REGISTRY}/"), release["chart"]
        else:
            assert release["repositoryOpts"] == {"repo": f"{MIRROR}/charts"}, release
    assert any(r["inputs"]["chart"] == f"oci://{REGISTRY}/neuron/neuron-helm-chart" for r in resources
               if r["type"] == RELEASE)
    # The same images, by the same digests, under the mirror registry.
    before, after = _images(public), _images(resources)
    assert len(after) >= 3 and all(image.startswith(f"{REGISTRY}/") for image in after)
    assert {image.split("@")[1] for image in after} == {image.split("@")[1] for image in before}
    monitor = "3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a"  # prod's neuron_monitor_image
    assert f"{REGISTRY}/neuron/neuron-monitor@sha256:{monitor}" in after

    graph = tmp_path / "prodair.json"
    code = main(["check", "--plan", str(graph), "--stack-file", str(stack), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["message"] for f in findings if f["rule"] == "AP-AIR-001"] == []
    assert code == 0


def test_without_a_mirror_registry_images_stay_and_check_names_them(tmp_path, capsys):
    stack, resources = _preview(tmp_path, capsys, {"mirror_url": MIRROR, "signed_by": KEYRING})
    assert not any(image.startswith(REGISTRY) for image in _images(resources))
    code = main(["check", "--plan", str(tmp_path / "prodair.json"), "--stack-file", str(stack), "--format", "json"])
    messages = [f["message"] for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "AP-AIR-001"]
    assert code == 1
    assert any("neuron_monitor_image: image 444455556666.dkr.ecr" in m and "declares no registry" in m
               for m in messages), messages
