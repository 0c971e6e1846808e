"""`accelplane check` runs AP-AIR-001 on what an air-gapped stack effectively fetches: the stack
declaring its upstream sources (what `bundle lock` reads) plus `air_gap` passes, since the nodes get
only the mirror; an image by digest while `air_gap.registry` is unset fails the gate naming the field
and the image, and declaring the registry clears it."""

from __future__ import annotations

import copy
import json

import yaml

from accelplane.cli import main
from tests.support.ansible import lab

MIRROR = "http://mirror.lab.internal:8080/accelplane"
IMAGE = "public.ecr.aws/neuron/neuron-monitor@sha256:" + "b" * 64


def _stack(tmp_path, air_gap: dict, *, image: bool = False):
    document = copy.deepcopy(lab.lab_document())
    platform = lab.platform_of(document)
    platform["air_gap"] = air_gap
    platform["bare_metal"]["repositories"] = [
        {"name": "cuda", "uri": "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64",
         "suites": ["/"], "signed_by": "/etc/apt/keyrings/cuda.gpg"}
    ]
    platform["bare_metal"]["python"] = {"index_url": "https://download.pytorch.org/whl/cu128"}
    if image:
        platform["software_profiles"]["h100-r570"]["neuron_monitor_image"] = IMAGE
    path = tmp_path / "Pulumi.labair.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _air_findings(capsys, path):
    code = main(["check", "--stack-file", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, [f for f in json.loads(out)["findings"] if f["rule"] == "AP-AIR-001"]


def test_upstream_sources_declared_for_the_lock_are_not_findings(tmp_path, capsys):
    code, findings = _air_findings(capsys, _stack(tmp_path, {"mirror_url": MIRROR, "signed_by": "/etc/m.gpg"}))
    assert findings == []
    assert code == 0


def test_an_image_without_a_mirror_registry_fails_check_naming_it(tmp_path, capsys):
    air_gap = {"mirror_url": MIRROR, "signed_by": "/etc/m.gpg"}
    code, findings = _air_findings(capsys, _stack(tmp_path, air_gap, image=True))
    assert code == 1
    assert [f["message"] for f in findings] == [
        f"software_profiles.h100-r570.neuron_monitor_image: image {IMAGE} but air_gap declares no registry"
    ]
    assert findings[0]["enforcement"] == "mandatory" and not findings[0]["waived"]
    code, findings = _air_findings(capsys, _stack(tmp_path, {**air_gap, "registry": "registry.lab:5000"}, image=True))
    assert findings == [] and code == 0
