"""The declaration's `air_gap` section and AP-AIR-001 over a stack's effective artifact sources: the
lab stack declaring its upstream sources (what `bundle lock` reads) plus `air_gap` passes, since the
nodes get only the mirror; an image or OCI chart that would still be pulled from outside the mirror
registry is named with its field."""

from __future__ import annotations

import copy

import pytest
import yaml

from accelplane.bundle.sources import air_gap_resources
from accelplane.cli import main
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.hygiene.air_gap_sources_in_mirror import RULE
from tests.support.ansible import lab

MIRROR = "http://mirror.lab.internal:8080/accelplane"
KEYRING = "/etc/apt/keyrings/mirror.gpg"


def _platform(**air_gap):
    """The lab stack with upstream sources, as on the connected side, plus its mirror."""
    platform = copy.deepcopy(lab.platform_of(lab.lab_document()))
    platform["air_gap"] = {"mirror_url": MIRROR, "signed_by": KEYRING, **air_gap}
    bare_metal = platform["bare_metal"]
    bare_metal["repositories"] = [
        {"name": "cuda", "uri": "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64",
         "suites": ["/"], "signed_by": "/etc/apt/keyrings/cuda.gpg"}
    ]
    bare_metal["python"] = {
        "index_url": "https://download.pytorch.org/whl/cu128",
        "efa_installer_url": "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz",
    }
    return platform


def _messages(platform):
    resources = air_gap_resources(platform, stack="labair", project="accelplane")
    findings, _ = run_rule(RULE, ReferenceGraph(resources))
    return [finding.message for finding in findings]


def test_stack_declaring_upstream_sources_and_its_mirror_has_no_finding():
    assert _messages(_platform()) == []


def test_stack_without_air_gap_is_not_judged():
    platform = _platform()
    del platform["air_gap"]
    assert air_gap_resources(platform, stack="lab", project="accelplane") == []


def test_judged_sources_are_the_mirror_the_nodes_get_not_the_declared_upstream():
    platform = _platform()
    platform["bare_metal"]["python"]["find_links"] = "https://wheels.example/files/"
    resources = air_gap_resources(platform, stack="labair", project="accelplane")
    node = {s["field"]: s["url"] for s in resources[0].props["sources"]}
    assert node == {
        "accelplane_repositories[0].uri": f"{MIRROR}/apt",
        "accelplane_python.index_url": f"{MIRROR}/python/simple/",
        "accelplane_python.efa_installer_url": f"{MIRROR}/files/aws-efa-installer-{{version}}.tar.gz",
        "nccl_tests_source_url": f"{MIRROR}/files/nccl-tests-{{version}}.tar.gz",
    }
    assert _messages(platform) == []


def test_charts_come_from_the_mirror_and_images_from_its_registry():
    platform = _platform(registry="registry.lab.internal:5000")
    profile = platform["software_profiles"]["h100-r570"]
    profile["nvidia_device_plugin"] = "0.17.4"
    profile["neuron_helm_chart"] = "1.1.1"
    profile["neuron_monitor_image"] = "public.ecr.aws/neuron/neuron-monitor@sha256:" + "b" * 64
    platform["node_pools"].append({"name": "gpu", "software_profile": "h100-r570"})
    sources = {s["field"]: s["url"] for s in air_gap_resources(platform, stack="a", project="p")[0].props["sources"]}
    assert sources["software_profiles.h100-r570.nvidia_device_plugin"] == f"{MIRROR}/charts"
    assert sources["software_profiles.h100-r570.neuron_helm_chart"] == (
        "registry.lab.internal:5000/neuron/neuron-helm-chart"
    )
    assert sources["software_profiles.h100-r570.neuron_monitor_image"] == (
        "registry.lab.internal:5000/neuron/neuron-monitor@sha256:" + "b" * 64
    )
    assert _messages(platform) == []


def test_images_and_oci_charts_without_a_mirror_registry_are_named():
    platform = _platform()
    profile = platform["software_profiles"]["h100-r570"]
    profile["neuron_helm_chart"] = "1.1.1"
    profile["neuron_monitor_image"] = "public.ecr.aws/neuron/neuron-monitor@sha256:" + "b" * 64
    platform["node_pools"].append({"name": "gpu", "software_profile": "h100-r570"})
    assert sorted(m.split(":")[0] for m in _messages(platform)) == [
        "software_profiles.h100-r570.neuron_helm_chart", "software_profiles.h100-r570.neuron_monitor_image"
    ]


@pytest.mark.parametrize(
    ("air_gap", "field"),
    [({"mirror_url": MIRROR + "/", "signed_by": KEYRING}, "air_gap.mirror_url"),
     ({"mirror_url": "ftp://x/y", "signed_by": KEYRING}, "air_gap.mirror_url"),
     ({"mirror_url": MIRROR, "signed_by": KEYRING, "registry": "https://r"}, "air_gap.registry"),
     ({"mirror_url": MIRROR, "signed_by": KEYRING, "extra": 1}, "air_gap.extra"),
     ({"mirror_url": MIRROR}, "air_gap.signed_by"),
     ({"mirror_url": MIRROR, "signed_by": "keyring.gpg"}, "air_gap.signed_by")],
)
def test_bad_air_gap_section_is_exit_2_naming_line_and_field(tmp_path, capsys, air_gap, field):
    document = lab.lab_document()
    lab.platform_of(document)["air_gap"] = air_gap
    stack = tmp_path / "Pulumi.labair.yaml"
    stack.write_text(yaml.safe_dump(document, sort_keys=False))
    assert main(["bundle", "lock", "--stack-file", str(stack), "--output", str(tmp_path / "l.json")]) == 2
    err = capsys.readouterr().err
    line = next(n for n, text in enumerate(stack.read_text().splitlines(), 1) if text.strip() == "air_gap:")
    assert f"{stack}:" in err and field in err and "Traceback" not in err
    assert any(f":{n}" in err for n in range(line, line + 4)), err
    assert not (tmp_path / "l.json").exists()
