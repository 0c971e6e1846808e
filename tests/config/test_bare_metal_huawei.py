"""Huawei Ascend host groups on bare metal (roles/ascend_npu): the stack check asks for the versions
the role and framework install, the inventory carries the installers' chip name, and an air-gapped
stack's nodes fetch the installers from the mirror's files/."""

from __future__ import annotations

import copy

import pytest
import yaml

from accelplane.config.loader import load_stack, load_stack_text
from accelplane.errors import InputError
from accelplane.nodes.air_gap import node_sources
from accelplane.nodes.inventory import build_inventory
from tests.support.ansible import lab

PROFILE = "ascend910b-cann82"


def _mixed() -> dict:
    return copy.deepcopy(lab.lab_document(lab.MIXED_LAB_STACK))


def _group_index(document: dict) -> int:
    groups = lab.platform_of(document)["bare_metal"]["groups"]
    return next(index for index, group in enumerate(groups) if group["accelerator"].startswith("huawei-"))


def test_an_ascend_group_is_accepted_and_gets_its_chip():
    inventory = build_inventory(load_stack("lab-mixed"))
    variables = inventory.groups["a2_train"]["vars"]
    assert variables["accelplane_vendor"] == "huawei"
    assert variables["accelplane_ascend_chip"] == "910b"
    assert variables["accelplane_matrix"]["verdict"] == "compatible"
    for field in ("ascend_driver", "ascend_firmware", "cann", "torch_npu", "torch"):
        assert field in variables["accelplane_profile"], field
    # The other vendors' groups carry no chip name.
    assert "accelplane_ascend_chip" not in inventory.groups["trn2_train"]["vars"]


@pytest.mark.parametrize("missing", ["ascend_driver", "ascend_firmware", "cann", "torch_npu"])
def test_a_profile_without_a_version_the_ascend_role_installs_is_refused(missing):
    document = _mixed()
    lab.platform_of(document)["software_profiles"][PROFILE].pop(missing)
    index = _group_index(document)
    with pytest.raises(InputError) as error:
        load_stack_text(yaml.safe_dump(document, sort_keys=False), path="Pulumi.bad.yaml")
    text = str(error.value)
    assert f"accelplane:platform.bare_metal.groups[{index}].software_profile" in text, text
    assert f"lacks {missing}, needed on huawei-ascend-910b hosts" in text, text
    assert "Pulumi.bad.yaml:" in text


def test_the_driver_and_firmware_are_not_matrix_keys():
    profile = load_stack("lab-mixed").platform.software_profiles[PROFILE]
    stack = profile.matrix_stack("huawei-ascend-910b")
    assert "ascend_driver" not in stack and "ascend_firmware" not in stack
    assert stack["cann"] == "8.2.RC1"


def test_an_air_gapped_ascend_node_fetches_the_installers_from_the_mirror():
    mirror = "https://mirror.lab.internal/accelplane"
    assert node_sources({"mirror_url": mirror}, {})["ascend_npu_base_url"] == f"{mirror}/files"
    assert "ascend_npu_base_url" not in node_sources(None, {})
