"""nccl-tests is versioned like everything else on the node: the release is the software profile's
`nccl_tests`, its source tarball and SHA-256 are the matrix's sourced facts (comms.yaml), and the
inventory, the stack check, the matrix, the bundle lock and `diff` all read them from there."""

from __future__ import annotations

import copy

import pytest
import yaml

from accelplane.bundle.node_needs import group_needs
from accelplane.config.loader import load_stack_text
from accelplane.diff.software import software_changes
from accelplane.errors import InputError
from accelplane.matrix import Verdict, check, load
from accelplane.nodes.inventory import build_inventory
from tests.support.ansible import lab

H100 = "nvidia-hgx-h100-8gpu"


def _lab(edit=None):
    document = copy.deepcopy(lab.lab_document(lab.LAB_STACK))
    if edit:
        edit(lab.platform_of(document))
    return load_stack_text(yaml.safe_dump(document, sort_keys=False), path="Pulumi.lab.yaml", stack="lab")


def _h100_group(stack) -> int:
    return next(i for i, g in enumerate(stack.platform.bare_metal.groups) if g.validation.nccl_tests)


def test_the_release_data_carries_the_tarball_and_its_checksum_with_a_source() -> None:
    [release] = [r for r in load().comms.nccl_tests if r.version == "2.13.6"]
    assert release.url == "https://github.com/NVIDIA/nccl-tests/archive/v2.13.6.tar.gz"
    assert release.sha256 == "52b472a58a4918d3221a9b8c4bd9335382643d7e241983918b64692d685cc3d1"
    assert release.source.startswith("https://github.com/spack/spack/")


def test_the_inventory_hands_the_nodes_the_profile_s_release_and_the_matrix_s_tarballs() -> None:
    stack = _lab()
    index = _h100_group(stack)
    name = stack.platform.bare_metal.groups[index].name.replace("-", "_")
    variables = build_inventory(stack).groups[name]["vars"]
    assert variables["accelplane_profile"]["nccl_tests"] == "2.13.6"
    assert variables["accelplane_nccl_tests_releases"]["2.13.6"] == {
        "url": "https://github.com/NVIDIA/nccl-tests/archive/v2.13.6.tar.gz",
        "sha256": "52b472a58a4918d3221a9b8c4bd9335382643d7e241983918b64692d685cc3d1",
    }


def test_a_group_that_runs_nccl_tests_needs_the_release_in_its_profile() -> None:
    def drop(platform):
        for profile in platform["software_profiles"].values():
            profile.pop("nccl_tests", None)

    with pytest.raises(InputError) as error:
        _lab(drop)
    assert "lacks nccl_tests, needed on" in str(error.value)


def test_the_matrix_refuses_a_release_it_has_no_checksum_for_and_a_non_nvidia_accelerator() -> None:
    known = check({"accelerator": H100, "nccl_tests": "2.13.6"})
    assert known.verdict is Verdict.COMPATIBLE
    unknown = check({"accelerator": H100, "nccl_tests": "2.99.0"})
    assert unknown.verdict is Verdict.INCOMPATIBLE and "known: 2.13.6" in unknown.findings[0].message
    amd = check({"accelerator": "amd-mi300x", "nccl_tests": "2.13.6"})
    assert [f.rule for f in amd.findings if f.verdict is Verdict.INCOMPATIBLE] == ["nccl.tests"]


def test_the_bundle_lock_fetches_the_profile_s_release_from_the_matrix_s_url() -> None:
    stack = _lab()
    downloads = group_needs(stack, _h100_group(stack), "x86_64").downloads
    [nccl] = [d for d in downloads if d.role == "nccl_tests"]
    assert (nccl.url, nccl.sha256) == (
        "https://github.com/NVIDIA/nccl-tests/archive/v2.13.6.tar.gz",
        "52b472a58a4918d3221a9b8c4bd9335382643d7e241983918b64692d685cc3d1",
    )


def test_diff_shows_a_new_nccl_tests_release_with_the_matrix_s_verdict() -> None:
    base = lab.platform_of(copy.deepcopy(lab.lab_document(lab.LAB_STACK)))
    head = copy.deepcopy(base)
    head["software_profiles"]["h100-r570"]["nccl_tests"] = "2.99.0"

    def bump(platform):
        platform["software_profiles"]["h100-r570"]["nccl_tests"] = "2.99.0"

    changes = software_changes(base, head, _lab(bump).platform)
    [change] = [c for c in changes if any(v.key == "nccl_tests" for v in c.changes)]
    [version] = [v for v in change.changes if v.key == "nccl_tests"]
    assert (version.old, version.new) == ("2.13.6", "2.99.0")
    assert change.verdict == "incompatible" and any(rule == "nccl.tests" for rule, _, _ in change.verdict_findings)
