"""`accelplane check` runs AP-AIR-001: an air-gapped stack with an artifact source outside its
mirror fails the gate naming the field and the URL; the same stack at the mirror passes."""

from __future__ import annotations

import copy
import json

import yaml

from accelplane.cli import main
from tests.support.ansible import lab

MIRROR = "http://mirror.lab.internal:8080/accelplane"


def _stack(tmp_path, repository_uri: str):
    document = copy.deepcopy(lab.lab_document())
    platform = lab.platform_of(document)
    platform["air_gap"] = {"mirror_url": MIRROR}
    platform["bare_metal"]["repositories"] = [
        {"name": "mirror", "uri": repository_uri, "suites": ["./"], "signed_by": "/etc/apt/keyrings/mirror.gpg"}
    ]
    platform["bare_metal"]["python"] = {
        "index_url": f"{MIRROR}/python/simple/",
        "efa_installer_url": f"{MIRROR}/files/aws-efa-installer-{{version}}.tar.gz",
    }
    path = tmp_path / "Pulumi.labair.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def _air_findings(capsys, path):
    code = main(["check", "--stack-file", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, [f for f in json.loads(out)["findings"] if f["rule"] == "AP-AIR-001"]


def test_repository_outside_the_mirror_fails_check_naming_it(tmp_path, capsys):
    code, findings = _air_findings(capsys, _stack(tmp_path, "https://developer.download.nvidia.com/compute/cuda/repos"))
    assert code == 1
    assert [f["message"] for f in findings] == [
        "bare_metal.repositories[0].uri: apt source https://developer.download.nvidia.com/compute/cuda/repos "
        f"is not the mirror {MIRROR}"
    ]
    assert findings[0]["enforcement"] == "mandatory" and not findings[0]["waived"]


def test_the_same_stack_at_the_mirror_is_clean(tmp_path, capsys):
    code, findings = _air_findings(capsys, _stack(tmp_path, f"{MIRROR}/apt"))
    assert findings == []
    assert code == 0
