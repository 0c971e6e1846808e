"""nccl-tests are provided, not assumed: apply builds all_reduce_perf from the pinned, checksummed
source tarball (role nccl_tests, through comms_stack) when the group's validation runs nccl-tests,
and validation names a missing binary instead of running whatever is on PATH.

The lab's source tarball is a stand-in whose build writes the all_reduce_perf stand-in
(tests/support/ansible/catalog.py nccl_tests_tarball); lab stacks point the role at it with its
checksum through group_vars/ beside the stack file (lab.write_stack).
"""

from __future__ import annotations

import hashlib
import json

import yaml

from tests.support.ansible import lab
from tests.support.ansible.catalog import NCCL_TESTS_VERSION, nccl_tests_tarball

BINARY = "/opt/accelplane/nccl-tests/current/build/all_reduce_perf"


def test_apply_builds_all_reduce_perf_from_the_pinned_source(applied):
    # applied.h100 is the upper layer of the applied node: what site.yml wrote.
    prefix = applied.h100 / "opt/accelplane/nccl-tests"
    build = f"{NCCL_TESTS_VERSION}-cuda12.8"
    assert (prefix / "current").readlink().name == build
    assert (prefix / build / "build/all_reduce_perf").stat().st_mode & 0o111
    record = (prefix / build / ".accelplane-source").read_text()
    assert record == (
        f"file:///srv/accelplane-lab/nccl-tests/nccl-tests-{NCCL_TESTS_VERSION}.tar.gz "
        f"sha256:{hashlib.sha256(nccl_tests_tarball()).hexdigest()}\n"
    )
    # Nothing on PATH: validation ran the build.
    assert not (applied.h100 / "usr/local/bin/all_reduce_perf").exists()
    assert applied.h100_report["checks"]["nccl_tests"]["avg_bus_bandwidth_gbps"] == 356.42


def test_validation_fails_naming_a_missing_all_reduce_perf(applied, make_node, tmp_path):
    node = make_node("h100-01", snapshot=applied.h100)
    node.path(BINARY).unlink()
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]})
    result = lab.run("validate.yml", stack, tmp_path)
    assert result.rc != 0
    report = json.loads((result.report_dir / "h100-01.json").read_text())
    assert report["mismatches"] == [
        f"nccl-tests all_reduce_perf is not installed ({BINARY}): run `accelplane nodes apply`, which builds it "
        "(role nccl_tests) when the group sets validation.nccl_tests, or set node_validation_all_reduce_perf"
    ]
    assert report["checks"]["nccl_tests"] == {"installed": False}


def test_a_source_tarball_that_differs_from_its_checksum_is_refused(applied, make_node, tmp_path):
    node = make_node("h100-01", snapshot=applied.h100)
    stack = lab.write_stack(tmp_path, {"h100-train": [("h100-01", node.root)]})
    group_vars = tmp_path / "group_vars" / "all.yml"
    settings = yaml.safe_load(group_vars.read_text())
    settings["nccl_tests_source_sha256"] = "0" * 64
    group_vars.write_text(yaml.safe_dump(settings))
    result = lab.run("site.yml", stack, tmp_path, extravars={"node_reboot_skip": True})
    assert result.rc != 0
    assert "checksum" in lab.failure(result).lower()
    # The build in use is still the one from the checked source.
    assert node.path(BINARY).is_file()
