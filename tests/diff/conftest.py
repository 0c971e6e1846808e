"""The review scenario: a repository with two commits and an uncommitted edit, diffed once.

Base commit: the project, with `force_destroy` on the prod logs bucket (a mandatory finding the
change resolves).
Second commit: a new node pool (`infer-l4`), one allowed CIDR of the inference endpoint changed
(two security-group rules), `force_destroy` moved to the checkpoints bucket (a new mandatory
finding), a program change (an egress rule's description: proves the base graph comes from the
base's own code) and a new `qa` stack (a copy of dev).
Working tree, not committed: train-h100's profile moves to EKS AMI release 1.33.11-20260505, whose driver (and
fabric manager) is 580.126.09 instead of 580.105.08.

`accelplane diff` runs once through the CLI (exit code, JSON output); a spy keeps the `PlanDiff`
so the other formats are rendered from the same run.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from accelplane.diff.plan_diff import PlanDiff
from tests.diff.git_project import commit_all, copy_project, edit, git_state, init_repository, snapshot
from tests.diff.kept_diff import keeping_diffs

NEW_POOL = """      - name: infer-l4
        purpose: inference
        accelerator: nvidia-l4
        instance_type: g6.2xlarge
        software_profile: l40s-cuda12
        scaling: {min: 0, desired: 1, max: 4}
        disk_gib: 200
"""
# The H100 profile's AMI release: on EKS it decides the driver and fabric manager (580.105.08 -> 580.126.09).
_H100_AMI_TAIL = '\n        nvidia_device_plugin: "0.18.0"\n        dcgm_exporter: "4.1.1"\n        efa_device_plugin'
AMI_RELEASE_OLD = 'ami_release_version: "1.33.5-20251120"' + _H100_AMI_TAIL
AMI_RELEASE_NEW = 'ami_release_version: "1.33.11-20260505"' + _H100_AMI_TAIL


@dataclass
class Scenario:
    repo: Path
    base_commit: str
    exit_code: int
    diff: PlanDiff
    json: dict[str, Any]
    before: tuple[str, dict[str, str]]
    after: tuple[str, dict[str, str]]
    git_before: dict[str, str]
    git_after: dict[str, str]
    temp_root: Path


def build_scenario_repository(root: Path) -> tuple[Path, str]:
    repo = copy_project(root / "repo")
    prod = repo / "stacks" / "Pulumi.prod.yaml"
    edit(prod, "      - role: logs\n", "      - role: logs\n        force_destroy: true\n")
    base_commit = init_repository(repo)

    edit(prod, "      - role: logs\n        force_destroy: true\n", "      - role: logs\n")
    edit(prod, "      - role: checkpoints\n", "      - role: checkpoints\n        force_destroy: true\n")
    edit(prod, "allowed_cidrs: [198.51.100.0/24, 203.0.113.0/24]", "allowed_cidrs: [198.51.100.0/24, 192.0.2.0/24]")
    edit(prod, "      - name: train-trn1\n", NEW_POOL + "      - name: train-trn1\n")
    edit(repo / "accelplane" / "clouds" / "aws" / "components" / "security_groups.py",
         'description="to inference pods"', 'description="to inference pods (service port)"')
    dev = (repo / "stacks" / "Pulumi.dev.yaml").read_text()
    (repo / "stacks" / "Pulumi.qa.yaml").write_text(dev.replace("name: acme-ml-dev", "name: acme-ml-qa"))
    commit_all(repo, "a new inference pool, one CIDR replaced, force_destroy moved, a qa stack")

    edit(prod, AMI_RELEASE_OLD, AMI_RELEASE_NEW)  # left uncommitted: the diff is against the working tree
    return repo, base_commit


@pytest.fixture(scope="session")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    from accelplane.cli import main

    root = tmp_path_factory.mktemp("diff-scenario")
    repo, base_commit = build_scenario_repository(root)
    temp_root = root / "tmp"
    temp_root.mkdir()
    output = root / "diff.json"
    before, git_before = snapshot(repo), git_state(repo)
    with keeping_diffs() as seen, pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(temp_root))
        exit_code = main(["diff", "--stack", "prod", "--base", "HEAD~1", "--project-dir", str(repo),
                          "--format", "json", "--output", str(output), "--as-of", "2026-06-01"])
    yield Scenario(repo=repo, base_commit=base_commit, exit_code=exit_code, diff=seen[0],
                   json=json.loads(output.read_text()), before=before, after=snapshot(repo), git_before=git_before,
                   git_after=git_state(repo), temp_root=temp_root)
