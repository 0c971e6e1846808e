"""`accelplane diff` on the review scenario (see conftest.py): what each format says, exactly, and
that the working tree, the repository and the temporary area are as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.cli import main
from accelplane.diff import render
from tests.diff.conftest import Scenario


def _section(text: str, start: str, end: str | None = None) -> str:
    """The lines of `text` from the line starting with `start` up to (not including) the next line
    starting with `end` (or a blank line when `end` is None)."""
    lines = text.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith(start))
    for last in range(first + 1, len(lines)):
        if (end is None and not lines[last].strip()) or (end is not None and lines[last].startswith(end)):
            return "\n".join(lines[first:last])
    return "\n".join(lines[first:])


def test_diff_exits_1_because_the_change_introduces_a_mandatory_finding(scenario: Scenario) -> None:
    assert scenario.exit_code == 1
    assert not scenario.diff.passed
    assert [(i.rule, i.name, i.enforcement) for i in scenario.diff.blocking] == [
        ("AP-S3-011", "acme-ml-checkpoints-bucket", "mandatory")]


def test_working_tree_repository_and_temp_area_are_untouched(scenario: Scenario) -> None:
    status_before, files_before = scenario.before
    status_after, files_after = scenario.after
    assert status_after == status_before
    assert " M stacks/Pulumi.prod.yaml" in status_after  # the uncommitted AMI release change is still there
    assert files_after == files_before
    assert scenario.git_after == scenario.git_before  # no ref, index or worktree registration changed
    assert list(scenario.temp_root.iterdir()) == []  # the base's copy is gone


def test_table_shows_changed_inputs_old_to_new_by_component(scenario: Scenario) -> None:
    text = render(scenario.diff, "table")
    assert text.splitlines()[0] == (
        f"accelplane diff: stack prod, base revision HEAD~1 ({scenario.base_commit[:7]}) → working tree")
    # A changed allowed CIDR changes the two rules built from it; the egress rule's new description
    # comes from the second commit's program code: the base graph was made by the base's own code.
    assert _section(text, "  PlatformSecurityGroups acme-ml-sg", "  SecureBucket") == """\
  PlatformSecurityGroups acme-ml-sg
    ~ aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule  acme-ml-sg-lb-in-443-1
          cidrIpv4: "203.0.113.0/24" → "192.0.2.0/24"
    ~ aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule  acme-ml-sg-lb-in-80-1
          cidrIpv4: "203.0.113.0/24" → "192.0.2.0/24"
    ~ aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule  acme-ml-sg-lb-out-targets
          description: "to inference pods" → "to inference pods (service port)\""""
    # The uncommitted AMI release change is in the diff: the head is the working tree, not HEAD. The
    # driver, fabric manager and container toolkit labels follow the release (the AMI decides them),
    # and EKS rolls every node of the group onto the new AMI (said under the line).
    assert _section(text, "  AcceleratorNodePool acme-ml-train-h100", "  AcceleratorQueues") == """\
  AcceleratorNodePool acme-ml-train-h100
    ~ aws:eks/nodeGroup:NodeGroup  acme-ml-train-h100-ng
          ! updated in place, but every node is recreated because releaseVersion changed: a rolling \
replacement drains the pool node by node (pods are evicted, jobs on a drained node stop and resume from their last \
checkpoint), its serving capacity is short by the surge while it rolls, and the quota must hold the surge nodes \
beside the old ones
          labels["versions.accelplane.io/ami-release-version"]: "1.33.5-20251120" → "1.33.11-20260505"
          labels["versions.accelplane.io/container-toolkit"]: "1.18.0" → "1.19.0"
          labels["versions.accelplane.io/driver"]: "580.105.08" → "580.126.09"
          labels["versions.accelplane.io/fabric-manager"]: "580.105.08" → "580.126.09"
          releaseVersion: "1.33.5-20251120" → "1.33.11-20260505\""""
    assert _section(text, "  SecureBucket acme-ml-checkpoints", "  SecureBucket acme-ml-logs") == """\
  SecureBucket acme-ml-checkpoints
    ~ aws:s3/bucket:Bucket  acme-ml-checkpoints-bucket
          forceDestroy: false → true"""
    assert _section(text, "  AcceleratorNodePool acme-ml-infer-l4", "  AcceleratorNodePool acme-ml-train") == """\
  AcceleratorNodePool acme-ml-infer-l4
    + aws:ec2/launchTemplate:LaunchTemplate  acme-ml-infer-l4-lt
          blockDeviceMappings[0].ebs.volumeSize: 200
          metadataOptions.httpTokens: "required"
          metadataOptions.httpPutResponseHopLimit: 1
    + aws:eks/nodeGroup:NodeGroup  acme-ml-infer-l4-ng
          instanceTypes: ["g6.2xlarge"]
          amiType: "AL2023_x86_64_NVIDIA"
          releaseVersion: "1.33.5-20251120"
          capacityType: "ON_DEMAND"
          scalingConfig.minSize: 0
          scalingConfig.maxSize: 4
          clusterName: "acme-ml"
          launchTemplate.id: "lt-23d7bee92bf56249e"
          nodeGroupName: "infer-l4"
          nodeRoleArn: "arn:aws:iam::123456789012:role/acme-ml-node-role-b433c96\""""
    # (a new resource shows its key inputs: what a reviewer asks first, and what can never change)


def test_table_software_findings_and_verdict_sections(scenario: Scenario) -> None:
    text = render(scenario.diff, "table")
    assert _section(text, "Software profiles:") == """\
Software profiles:
  + node pool infer-l4: profile l40s-cuda12, nvidia-l4; matrix: compatible
        os amazon-linux-2023, python 3.11, kernel_module open, cuda 12.8, cudnn 9.10.2.21, nccl 2.27.3, \
nccl_package nvidia-nccl-cu12, torch 2.8.0, nvidia_device_plugin 0.18.0, dcgm_exporter 4.1.1, \
ami_release_version 1.33.5-20251120
  ~ node pool train-h100: profile h100-cuda12, nvidia-hgx-h100-8gpu; matrix: compatible
        ami_release_version: 1.33.5-20251120 → 1.33.11-20260505"""
    assert _section(text, "Findings introduced") == """\
Findings introduced (1):
  BLOCKING  high     AP-S3-011   acme-ml-checkpoints-bucket: forceDestroy is on in prod: destroying the stack \
deletes every object
Findings resolved (1):
  resolved  high     AP-S3-011   acme-ml-logs-bucket: forceDestroy is on in prod: destroying the stack deletes \
every object"""
    assert text.rstrip().splitlines()[-1] == "FAILED: the change introduces 1 blocking finding (mandatory)"


def test_resources_created_updated_and_counted(scenario: Scenario) -> None:
    diff = scenario.diff
    created = {r.name for r in diff.of("create")}
    assert {"acme-ml-infer-l4", "acme-ml-infer-l4-lt", "acme-ml-infer-l4-ng"} <= created
    assert all("infer-l4" in name for name in created)  # everything new belongs to the new pool
    assert {r.name for r in diff.of("update")} >= {
        "acme-ml-sg-lb-in-443-1", "acme-ml-sg-lb-in-80-1", "acme-ml-sg-lb-out-targets", "acme-ml-train-h100-ng",
        "acme-ml-checkpoints-bucket", "acme-ml-logs-bucket"}
    assert diff.of("delete") == []
    assert diff.head_resources == diff.base_resources + len(created)
    summary = diff.summary()
    assert summary["unchanged"] == diff.head_resources - len(created) - len(diff.of("update"))
    table = render(diff, "table")
    assert (f"Resources: {len(created)} to create, {summary['update']} to update, 0 to delete, "
            f"{summary['unchanged']} unchanged ({diff.base_resources} → {diff.head_resources})") in table


def test_markdown_is_a_short_pr_comment(scenario: Scenario) -> None:
    diff = scenario.diff
    text = render(diff, "markdown")
    lines = text.splitlines()
    assert lines[0] == "### accelplane diff: stack `prod` — ❌ 1 blocking finding introduced"
    assert lines[2] == (
        f"Base `HEAD~1` ({scenario.base_commit[:7]}) → working tree: **{len(diff.of('create'))} to create, "
        f"{len(diff.of('update'))} to update, 0 to delete** ({diff.base_resources} → {diff.head_resources} "
        "resources) · findings: **1 introduced**, 1 resolved · software: 2 version sets changed")
    assert _section(text, "#### Software profiles", "<details>") == """\
#### Software profiles

| Target | Change | Matrix (new set) |
|---|---|---|
| `infer-l4` (node pool) | new, profile `l40s-cuda12` on `nvidia-l4` | ✅ compatible |
| `train-h100` (node pool) | ami_release_version `1.33.5-20251120` → `1.33.11-20260505` | ✅ compatible |
"""
    assert _section(text, "#### Findings introduced", "<details>") == """\
#### Findings introduced

| Severity | Rule | Resource | Finding |
|---|---|---|---|
| high, **blocking** | `AP-S3-011` | `acme-ml-checkpoints-bucket` | forceDestroy is on in prod: destroying the stack \
deletes every object |
"""
    assert "<details><summary>Findings resolved (1)</summary>" in lines
    assert _section(text, "**`PlatformSecurityGroups` acme-ml-sg**", "**`SecureBucket`") == """\
**`PlatformSecurityGroups` acme-ml-sg** (3 update)

| | Resource | Type | Changed inputs |
|---|---|---|---|
| ~ | `acme-ml-sg-lb-in-443-1` | `aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule` | `cidrIpv4` |
| ~ | `acme-ml-sg-lb-in-80-1` | `aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule` | `cidrIpv4` |
| ~ | `acme-ml-sg-lb-out-targets` | `aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule` | `description` |

<details><summary>3 input changes</summary>

```
~ acme-ml-sg-lb-in-443-1
    cidrIpv4: "203.0.113.0/24" → "192.0.2.0/24"
~ acme-ml-sg-lb-in-80-1
    cidrIpv4: "203.0.113.0/24" → "192.0.2.0/24"
~ acme-ml-sg-lb-out-targets
    description: "to inference pods" → "to inference pods (service port)"
```

</details>
"""
    # Every <details> is closed, and the comment fits GitHub's limit.
    assert text.count("<details>") == text.count("</details>")
    assert len(text) < 65_536


def test_json_carries_the_same_diff(scenario: Scenario) -> None:
    data = scenario.json
    assert data["stack"] == "prod"
    assert data["base"] == {"ref": "HEAD~1", "commit": scenario.base_commit}
    assert data["head"] == "working tree"
    assert data["summary"]["passed"] is False and data["summary"]["blocking"] == 1
    by_name = {r["name"]: r for c in data["components"] for r in c["resources"]}
    assert by_name["acme-ml-train-h100-ng"]["changes"] == [
        {"path": 'labels["versions.accelplane.io/ami-release-version"]', "op": "change", "old": "1.33.5-20251120",
         "new": "1.33.11-20260505"},
        {"path": 'labels["versions.accelplane.io/container-toolkit"]', "op": "change", "old": "1.18.0",
         "new": "1.19.0"},
        {"path": 'labels["versions.accelplane.io/driver"]', "op": "change", "old": "580.105.08", "new": "580.126.09"},
        {"path": 'labels["versions.accelplane.io/fabric-manager"]', "op": "change", "old": "580.105.08",
         "new": "580.126.09"},
        {"path": "releaseVersion", "op": "change", "old": "1.33.5-20251120", "new": "1.33.11-20260505"},
    ]
    assert by_name["acme-ml-infer-l4-ng"]["op"] == "create"
    assert by_name["acme-ml-infer-l4-ng"]["parent"].endswith("accelplane:aws:AcceleratorNodePool::acme-ml-infer-l4")
    introduced = data["findings"]["introduced"]
    assert [(f["rule"], f["name"], f["enforcement"], f["blocking"]) for f in introduced] == [
        ("AP-S3-011", "acme-ml-checkpoints-bucket", "mandatory", True)]
    assert set(introduced[0]) >= {"rule", "severity", "enforcement", "urn", "type", "name", "message", "remediation"}
    assert [(f["rule"], f["name"], f["blocking"]) for f in data["findings"]["resolved"]] == [
        ("AP-S3-011", "acme-ml-logs-bucket", False)]
    h100 = next(s for s in data["software"] if s["name"] == "train-h100")
    assert h100 == {
        "kind": "node pool", "name": "train-h100", "status": "changed",
        "profile": {"old": "h100-cuda12", "new": "h100-cuda12"},
        "accelerator": {"old": "nvidia-hgx-h100-8gpu", "new": "nvidia-hgx-h100-8gpu"},
        "changes": [{"key": "ami_release_version", "old": "1.33.5-20251120", "new": "1.33.11-20260505"}],
        "verdict": "compatible", "verdict_findings": [],
    }


def test_cli_writes_each_format_and_sets_the_exit_code(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("accelplane.diff.diff_stack", lambda *args, **kwargs: scenario.diff)
    for fmt in ("table", "markdown", "json"):
        output = tmp_path / f"diff.{fmt}"
        assert main(["diff", "--stack", "prod", "--base", "HEAD~1", "--format", fmt, "--output", str(output)]) == 1
        assert output.read_text() == render(scenario.diff, fmt)
    assert main(["diff", "--stack", "prod", "--base", "HEAD~1"]) == 1
    out, err = capsys.readouterr()
    assert out == render(scenario.diff, "table")
    assert "FAILED: " in err and "(1 blocking)" in err


def test_a_stack_new_in_the_change_is_all_creates(scenario: Scenario) -> None:
    from accelplane.config.loader import load_stack
    from accelplane.config.project import find_project
    from accelplane.diff import diff_stack
    from accelplane.rules.sources import is_bookkeeping

    project = find_project(scenario.repo, fallback=False)
    diff = diff_stack(load_stack("qa", project), "HEAD~1", project=project, as_of=None)
    assert diff.base_resources == 0 and diff.of("update") == [] and diff.of("delete") == []
    # Providers are listed (a provider change, a region, is what a reviewer must see) but not counted.
    created = [d for d in diff.of("create") if not is_bookkeeping(d.type)]
    assert len(created) == diff.head_resources > 0
    assert diff.notes == ["stack qa does not exist at HEAD~1: everything is new"]
    # `preview` said 91 to create where `diff` said 90 for the same new stack: both count the stack itself.
    import re

    from accelplane.engine.plan import render_plan
    from accelplane.program import offline_graph

    stack = load_stack("qa", project)
    plan = render_plan(offline_graph(stack), project.name)
    previewed = int(re.search(r"\+ (\d+) to create", plan).group(1))  # type: ignore[union-attr]
    assert diff.summary()["create"] == previewed
    assert {(s.kind, s.name, s.status, s.verdict) for s in diff.software} >= {
        ("node pool", "infer-l4", "added", "compatible"), ("node pool", "train-l4", "added", "compatible")}
    assert "note: stack qa does not exist at HEAD~1: everything is new" in render(diff, "table")
