"""EFA on AWS Neuron host groups (roles/node_software/tasks/vendor_aws.yml): the stack check asks for
the EFA installer's version but not aws-ofi-nccl (NCCL's plugin: the Neuron collectives bring their
own), and EFA stays refused on vendors with no EFA installer role."""

from __future__ import annotations

import copy

import pytest
import yaml

from accelplane.bundle.node_needs import group_needs
from accelplane.config.loader import load_stack_text
from accelplane.errors import InputError
from accelplane.nodes.inventory import build_inventory
from tests.support.ansible import lab

EFA_INSTALLER = "1.43.2"  # the lab's EFA installer stand-in (tests/support/ansible/catalog.py EFA)


def _with_efa(vendor_prefix: str, efa_installer: str | None = EFA_INSTALLER) -> tuple[dict, int]:
    """The mixed lab stack with `efa: true` on its first group whose accelerator starts with `vendor_prefix`."""
    document = copy.deepcopy(lab.lab_document(lab.MIXED_LAB_STACK))
    platform = lab.platform_of(document)
    groups = platform["bare_metal"]["groups"]
    index = next(i for i, group in enumerate(groups) if group["accelerator"].startswith(vendor_prefix))
    groups[index]["efa"] = True
    if efa_installer:
        platform["software_profiles"][groups[index]["software_profile"]]["efa_installer"] = efa_installer
    return document, index


def _load(document: dict):
    return load_stack_text(yaml.safe_dump(document, sort_keys=False), path="Pulumi.efa.yaml")


def test_a_neuron_group_with_efa_needs_the_installer_but_not_aws_ofi_nccl():
    document, _ = _with_efa("aws-trainium")
    variables = build_inventory(_load(document)).groups["trn2_train"]["vars"]
    assert variables["accelplane_efa"] is True
    assert variables["accelplane_profile"]["efa_installer"] == EFA_INSTALLER
    assert "aws_ofi_nccl" not in variables["accelplane_profile"]


def test_the_bundle_lock_fetches_the_installer_of_a_neuron_group_with_efa():
    # node_needs walks the task files site.yml runs: vendor_aws.yml's include of comms_stack's efa tasks.
    document, index = _with_efa("aws-trainium")
    downloads = group_needs(_load(document), index, "x86_64").downloads
    assert [(d.role, d.url) for d in downloads] == [
        ("comms_stack", f"https://efa-installer.amazonaws.com/aws-efa-installer-{EFA_INSTALLER}.tar.gz")
    ]


def test_a_neuron_group_with_efa_and_no_installer_version_is_refused():
    document, index = _with_efa("aws-trainium", efa_installer=None)
    with pytest.raises(InputError) as error:
        _load(document)
    text = str(error.value)
    assert f"accelplane:platform.bare_metal.groups[{index}].software_profile" in text, text
    assert "lacks efa_installer, needed on aws-trainium2 hosts" in text, text


def test_efa_on_a_gaudi_group_is_refused():
    document, index = _with_efa("intel-gaudi")
    with pytest.raises(InputError) as error:
        _load(document)
    text = str(error.value)
    assert f"accelplane:platform.bare_metal.groups[{index}].efa" in text, text
    assert "EFA is installed for NVIDIA groups (with aws-ofi-nccl) and AWS Neuron groups only" in text, text
