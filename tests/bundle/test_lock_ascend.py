"""`bundle lock` reads roles/ascend_npu's installers: the four `.run` files a fresh node of an
Ascend group downloads (a looped get_url over the installers still due, which on a fresh node is
all of them), per architecture, with the checksums the stack declares."""

from __future__ import annotations

import copy

import pytest
import yaml

from accelplane.bundle.node_needs import group_needs
from accelplane.config.loader import load_stack_file
from tests.support.ansible import lab
from tests.support.ansible.catalog import ASCEND, ASCEND_LAB_URL, ascend_group_vars, ascend_installers

GROUP = "a2-train"  # stacks/Pulumi.lab-mixed.yaml's Ascend 910B group


def _stack(tmp_path):
    """The mixed lab stack with its `group_vars/` (the lab's installer source and checksums)."""
    document = copy.deepcopy(lab.lab_document(lab.MIXED_LAB_STACK))
    groups = lab.platform_of(document)["bare_metal"]["groups"]
    index = next(i for i, group in enumerate(groups) if group["name"] == GROUP)
    profile = lab.platform_of(document)["software_profiles"][groups[index]["software_profile"]]
    path = tmp_path / "Pulumi.ascend.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "all.yml").write_text(yaml.safe_dump(ascend_group_vars()))
    return load_stack_file(path), index, profile["cann"]


@pytest.mark.parametrize("architecture", ["x86_64", "aarch64"])
def test_lock_lists_each_installer_of_the_architecture_with_its_declared_checksum(tmp_path, architecture):
    stack, index, cann = _stack(tmp_path)
    downloads = [d for d in group_needs(stack, index, architecture).downloads if d.role == "ascend_npu"]
    expected = ascend_installers(cann, architecture)
    declared = ascend_group_vars()["ascend_npu_sha256"]
    assert isinstance(declared, dict)
    assert [(d.url, d.sha256) for d in downloads] == [
        (f"{ASCEND_LAB_URL}/{installer['file']}", declared.get(installer["file"])) for installer in expected
    ]
    assert [installer["name"] for installer in expected] == ["driver", "firmware", "toolkit", "kernels"]
    # The architecture picks the toolkit's and kernels' files.
    other = "aarch64" if architecture == "x86_64" else "x86_64"
    assert all(other not in d.url for d in downloads[2:]) and all(architecture in d.url for d in downloads[2:])
    assert cann in ASCEND
