"""The inventory of an air-gapped stack: what the declaration leaves unset (Python index, EFA
installer, nccl-tests source) comes from `air_gap.mirror_url` in the mirror's layout; what it sets
reaches the roles as written (AP-AIR-001 judges it); a stack without `air_gap` keeps the public
defaults."""

from __future__ import annotations

import copy

import yaml

from accelplane.config.loader import load_stack_text
from accelplane.nodes.inventory import build_inventory
from tests.support.ansible import lab

MIRROR = "https://mirror.site.internal/accelplane"


def _group_vars(air_gap: dict | None, python: dict | None = None) -> dict:
    document = copy.deepcopy(lab.lab_document())
    platform = lab.platform_of(document)
    if air_gap is not None:
        platform["air_gap"] = air_gap
    platform["bare_metal"]["python"] = python or {}
    stack = load_stack_text(yaml.safe_dump(document, sort_keys=False), stack="labair")
    inventory = build_inventory(stack)
    return inventory.groups["h100_train"]["vars"]


def test_unset_sources_come_from_the_mirror_layout():
    variables = _group_vars({"mirror_url": MIRROR})
    assert variables["accelplane_python"] == {
        "index_url": f"{MIRROR}/python/simple/",
        "find_links": None,
        "efa_installer_url": f"{MIRROR}/files/aws-efa-installer-{{version}}.tar.gz",
    }
    assert variables["nccl_tests_source_url"] == f"{MIRROR}/files/nccl-tests-{{version}}.tar.gz"


def test_declared_sources_are_kept_as_written():
    python = {"index_url": "https://download.pytorch.org/whl/cu128", "efa_installer_url": "https://x.example/efa.tgz"}
    variables = _group_vars({"mirror_url": MIRROR}, python)
    assert variables["accelplane_python"]["index_url"] == "https://download.pytorch.org/whl/cu128"
    assert variables["accelplane_python"]["efa_installer_url"] == "https://x.example/efa.tgz"


def test_find_links_alone_is_not_overridden_by_the_index():
    variables = _group_vars({"mirror_url": MIRROR}, {"find_links": "/srv/wheels"})
    assert variables["accelplane_python"]["find_links"] == "/srv/wheels"
    assert variables["accelplane_python"]["index_url"] is None


def test_without_air_gap_the_public_defaults_stay():
    variables = _group_vars(None)
    assert variables["accelplane_python"] == {
        "index_url": None,
        "find_links": None,
        "efa_installer_url": "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz",
    }
    assert "nccl_tests_source_url" not in variables
