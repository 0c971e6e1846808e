"""The inventory of an air-gapped stack: the declared (upstream) sources are what `bundle lock`
reads; the nodes get only the mirror — its flat apt repository signed by `air_gap.signed_by`, its
Python index, EFA installer and nccl-tests source in the mirror's layout. A stack without `air_gap`
keeps its declared sources and the public defaults."""

from __future__ import annotations

import copy

import yaml

from accelplane.config.loader import load_stack_text
from accelplane.nodes.inventory import build_inventory
from tests.support.ansible import lab

MIRROR = "https://mirror.site.internal/accelplane"
KEYRING = "/etc/apt/keyrings/accelplane-mirror.gpg"
UPSTREAM_PYTHON = {"index_url": "https://download.pytorch.org/whl/cu128", "efa_installer_url": "https://x.example/efa.tgz"}


def _group_vars(air_gap: dict | None, python: dict | None = None) -> dict:
    document = copy.deepcopy(lab.lab_document())
    platform = lab.platform_of(document)
    if air_gap is not None:
        platform["air_gap"] = air_gap
    platform["bare_metal"]["python"] = python or {}
    stack = load_stack_text(yaml.safe_dump(document, sort_keys=False), stack="labair")
    inventory = build_inventory(stack)
    return inventory.groups["h100_train"]["vars"]


def test_the_nodes_get_only_the_mirror():
    variables = _group_vars({"mirror_url": MIRROR, "signed_by": KEYRING}, UPSTREAM_PYTHON)
    assert variables["accelplane_repositories"] == [
        {"name": "mirror", "uri": f"{MIRROR}/apt", "suites": ["./"], "components": [],
         "signed_by": KEYRING, "trusted": False}
    ]
    assert variables["accelplane_python"] == {
        "index_url": f"{MIRROR}/python/simple/",
        "find_links": None,
        "efa_installer_url": f"{MIRROR}/files/aws-efa-installer-{{version}}.tar.gz",
    }
    assert variables["nccl_tests_source_url"] == f"{MIRROR}/files/nccl-tests-{{version}}.tar.gz"


def test_find_links_is_replaced_by_the_mirror_index():
    variables = _group_vars({"mirror_url": MIRROR, "signed_by": KEYRING}, {"find_links": "/srv/wheels"})
    assert variables["accelplane_python"]["find_links"] is None
    assert variables["accelplane_python"]["index_url"] == f"{MIRROR}/python/simple/"


def test_a_file_mirror_without_a_keyring_is_trusted():
    variables = _group_vars({"mirror_url": "file:///srv/mirror"})
    assert variables["accelplane_repositories"][0] == {
        "name": "mirror", "uri": "file:///srv/mirror/apt", "suites": ["./"], "components": [],
        "signed_by": None, "trusted": True,
    }


def test_without_air_gap_the_declared_sources_and_public_defaults_stay():
    variables = _group_vars(None, UPSTREAM_PYTHON)
    declared = lab.platform_of(lab.lab_document())["bare_metal"]["repositories"]
    assert [r["uri"] for r in variables["accelplane_repositories"]] == [r["uri"] for r in declared]
    assert variables["accelplane_python"]["index_url"] == UPSTREAM_PYTHON["index_url"]
    assert "nccl_tests_source_url" not in variables
    assert _group_vars(None)["accelplane_python"] == {
        "index_url": None,
        "find_links": None,
        "efa_installer_url": "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz",
    }
