"""The declaration's `air_gap` section and AP-AIR-001 over a stack's artifact sources: the lab
stack pointed at its mirror passes; any source left at a public default, or an image outside the
mirror registry, is named with its field."""

from __future__ import annotations

import copy

import pytest
import yaml

from accelplane.bundle.sources import air_gap_resources
from accelplane.cli import main
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import Graph
from accelplane.rules.hygiene.air_gap_sources import RULE
from tests.support.ansible import lab

MIRROR = "http://mirror.lab.internal:8080/accelplane"


def _platform(**air_gap):
    platform = copy.deepcopy(lab.platform_of(lab.lab_document()))
    platform["air_gap"] = {"mirror_url": MIRROR, **air_gap}
    bare_metal = platform["bare_metal"]
    bare_metal["repositories"] = [
        {"name": "mirror", "uri": f"{MIRROR}/apt", "suites": ["./"], "signed_by": "/etc/apt/keyrings/mirror.gpg"}
    ]
    bare_metal["python"] = {
        "index_url": f"{MIRROR}/python/simple/",
        "efa_installer_url": f"{MIRROR}/files/aws-efa-installer-{{version}}.tar.gz",
    }
    return platform


def _messages(platform):
    resources = air_gap_resources(platform, stack="labair", project="accelplane")
    findings, _ = run_rule(RULE, Graph(resources))
    return [finding.message for finding in findings]


def test_stack_pointed_at_its_mirror_has_no_finding():
    assert _messages(_platform()) == []


def test_stack_without_air_gap_is_not_judged():
    platform = _platform()
    del platform["air_gap"]
    assert air_gap_resources(platform, stack="lab", project="accelplane") == []


def test_unset_sources_come_from_the_mirror_and_declared_ones_are_judged_as_written():
    platform = _platform()
    platform["bare_metal"]["python"] = {}  # index and EFA installer: derived from air_gap.mirror_url
    resources = air_gap_resources(platform, stack="labair", project="accelplane")
    derived = {s["field"]: s["url"] for s in resources[0].props["sources"] if "(mirror)" in s["kind"]}
    assert derived == {
        "bare_metal.python.index_url": f"{MIRROR}/python/simple/",
        "bare_metal.python.efa_installer_url": f"{MIRROR}/files/aws-efa-installer-{{version}}.tar.gz",
    }
    assert _messages(platform) == []
    platform["bare_metal"]["python"] = {
        "efa_installer_url": "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz"
    }
    assert _messages(platform) == [
        "bare_metal.python.efa_installer_url: installer source "
        "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz is not the mirror " + MIRROR
    ]


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


def test_a_host_that_only_starts_like_the_mirror_is_not_the_mirror():
    platform = _platform()
    platform["bare_metal"]["repositories"][0]["uri"] = MIRROR + "-public/apt"
    assert [m.split(":")[0] for m in _messages(platform)] == ["bare_metal.repositories[0].uri"]


@pytest.mark.parametrize(
    ("air_gap", "field"),
    [({"mirror_url": MIRROR + "/"}, "air_gap.mirror_url"), ({"mirror_url": "ftp://x/y"}, "air_gap.mirror_url"),
     ({"mirror_url": MIRROR, "registry": "https://r"}, "air_gap.registry"),
     ({"mirror_url": MIRROR, "extra": 1}, "air_gap.extra")],
)
def test_bad_air_gap_section_is_exit_2_naming_line_and_field(tmp_path, capsys, air_gap, field):
    document = lab.lab_document()
    lab.platform_of(document)["air_gap"] = air_gap
    stack = tmp_path / "Pulumi.labair.yaml"
    stack.write_text(yaml.safe_dump(document, sort_keys=False))
    assert main(["bundle", "lock", "--stack-file", str(stack), "--output", str(tmp_path / "l.json")]) == 2
    err = capsys.readouterr().err
    assert f"{stack}:" in err and field in err and "Traceback" not in err
    assert not (tmp_path / "l.json").exists()
