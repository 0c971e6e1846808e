"""A replacement reads as one in review: changing a TPU slice's topology in tpu-prod printed
`~ placementPolicy.tpuTopology` and counted `"replace": 0` while both v5p slices would be destroyed.

The graphs are the offline previews of real stack files, before and after one edit; what replaces
comes from the component's `replaceOnChanges` and the providers' force-new table.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from accelplane.config.loader import load_stack_text
from accelplane.diff.plan_diff import PlanDiff
from accelplane.diff.replacement import force_new_rules, normalized, table
from accelplane.diff.resources import diff_graphs
from accelplane.diff.table import render_table
from accelplane.diff.text_changes import is_downgrade, names_version
from accelplane.program import offline_graph
from tests.support.stack_files import stack_text

STACKS = ("dev", "prod", "tpu-dev", "tpu-prod", "lab", "lab-mixed")


# Offline plans of this process, keyed by the stack and its file's text: the unedited stacks are the base of
# most diffs here, planned once. Each caller gets its own copy (decoded anew), so none sees another's changes.
_PLANS: dict[tuple[str, str], str] = {}


def _graph(text: str, stack: str) -> dict[str, Any]:
    key = (stack, text)
    if key not in _PLANS:
        graph = offline_graph(load_stack_text(text, path=f"Pulumi.{stack}.yaml", stack=stack))
        _PLANS[key] = json.dumps(graph.to_json())
    return json.loads(_PLANS[key])


def _diff(stack: str, old: str, new: str, count: int = 1, also: tuple[tuple[str, str], ...] = ()) -> PlanDiff:
    """The diff of one edit of the stack file (`also`: further edits the same change needs)."""
    text = stack_text(stack)
    assert text.count(old) >= count, old
    changed = text.replace(old, new, count)
    for before, after in also:
        assert before in changed, before
        changed = changed.replace(before, after, 1)
    base, head = _graph(text, stack), _graph(changed, stack)
    return PlanDiff(stack=stack, base_ref="HEAD", base_commit="0" * 40, base_resources=len(base["resources"]),
                    head_resources=len(head["resources"]), resources=diff_graphs(base, head), introduced=[],
                    resolved=[], software=[])


@pytest.fixture(scope="module")
def topology_change() -> PlanDiff:
    return _diff("tpu-prod", "tpu_topology: 2x2x4", "tpu_topology: 2x4x4")


def test_a_tpu_topology_change_deletes_and_recreates_both_slices(topology_change: PlanDiff) -> None:
    pools = [r for r in topology_change.resources if r.type == "gcp:container/nodePool:NodePool"]
    assert sorted(r.name for r in pools) == ["acme-tpu-train-v5p-s0-pool", "acme-tpu-train-v5p-s1-pool"]
    for pool in pools:
        assert pool.op == "delete-before-replace" and pool.symbol == "-+"
        assert "placementPolicy.tpuTopology" in pool.forced_by
        assert pool.meaning is not None and "drained" in pool.meaning and "capacity is zero" in pool.meaning
    summary = topology_change.summary()
    assert summary["replace"] >= 2 and summary["delete_before_replace"] >= 2
    assert not any(r.type == "gcp:container/nodePool:NodePool" for r in topology_change.of("update"))


def test_the_table_marks_the_replacement_and_says_what_it_costs(topology_change: PlanDiff) -> None:
    text = render_table(topology_change)
    line = next(line for line in text.splitlines() if "acme-tpu-train-v5p-s0-pool" in line)
    assert line.strip().startswith("-+ gcp:container/nodePool:NodePool")
    assert "[DELETE-BEFORE-REPLACE: " in line and "placementPolicy.tpuTopology" in line
    assert "deleted before the new one exists" in text.splitlines()[2]
    json_pool = next(r for r in topology_change.to_json()["components"] for r in r["resources"]
                     if r["name"] == "acme-tpu-train-v5p-s0-pool")
    assert json_pool["op"] == "delete-before-replace" and "placementPolicy.tpuTopology" in json_pool["replace_because"]


def test_an_input_the_provider_cannot_change_in_place_replaces() -> None:
    """EKS cannot change a managed node group's instance types (ForceNew in the provider's schema)."""
    diff = _diff("prod", "instance_type: g6e.2xlarge", "instance_type: g6e.4xlarge")
    [group] = [r for r in diff.resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert group.op == "delete-before-replace"  # its name is fixed: the old group goes first
    assert group.forced_by == ("instanceTypes[0]",) and group.meaning is not None


def test_a_scaling_change_stays_an_update() -> None:
    diff = _diff("prod", "scaling: {min: 0, desired: 2, max: 4}", "scaling: {min: 0, desired: 2, max: 6}")
    groups = [r for r in diff.resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert [(g.op, g.forced_by) for g in groups] == [("update", ())]


def test_a_template_change_is_a_line_diff_of_the_configmap_it_replaces() -> None:
    """pulumi-kubernetes replaces a ConfigMap whose data changes; its fixed name makes it delete first.
    The table showed `"apiVersion: …name… → "apiVersion: …name…`; now the changed lines."""
    diff = _diff("prod", "          nodes: 3\n", "          nodes: 2\n")
    [config_map] = [r for r in diff.resources if r.type == "kubernetes:core/v1:ConfigMap"]
    assert config_map.op == "delete-before-replace" and config_map.forced_by == ('data["jobset.yaml"]',)
    text = render_table(diff)
    assert 'data["jobset.yaml"]: text changed (' in text
    assert "-         parallelism: 3" in text and "+         parallelism: 2" in text
    assert "-                 value: '3'" in text and "+                 value: '2'" in text
    [change] = config_map.changes
    assert "+         parallelism: 2" in change.to_json()["lines"]


def test_a_version_downgrade_is_flagged() -> None:
    diff = _diff("prod", 'kubernetes_version: "1.33"', 'kubernetes_version: "1.32"')
    [cluster] = [r for r in diff.resources if r.type == "aws:eks/cluster:Cluster"]
    [change] = [c for c in cluster.changes if c.path == "version"]
    assert change.to_json()["downgrade"] is True
    assert 'version: "1.33" → "1.32"  (downgrade)' in render_table(diff)


@pytest.mark.parametrize(("old", "new", "path", "flagged"), [
    ("1.33", "1.32", "version", True), ("1.9", "1.10", "version", False), ("570.172.08", "550.54.15",
     'labels["versions.accelplane.io/driver"]', True), ("10.0.2.0", "10.0.1.0", "privateIp", False),
    ("v0.14.2", "v0.14.10", "version", False),
])
def test_downgrades_are_read_as_versions(old: str, new: str, path: str, flagged: bool) -> None:
    assert (names_version(path) and is_downgrade(old, new)) is flagged


def test_a_block_the_provider_forces_only_when_it_comes_or_goes() -> None:
    """The plugin SDK's ForceNew on a nested block: adding or removing it replaces; a change inside
    it is judged by its own arguments (the node config's disk size updates in place)."""
    from accelplane.diff.plan_diff import ABSENT, InputChange
    from accelplane.diff.replacement import replacement

    old = {"type": "gcp:container/nodePool:NodePool", "inputs": {}}
    added = replacement(old, old, [InputChange("placementPolicy", ABSENT, {"type": "COMPACT"})])
    assert added is not None and added.paths == ("placementPolicy",)
    assert replacement(old, old, [InputChange("nodeConfig.diskSizeGb", 200, 500)]) is None
    count = replacement(old, old, [InputChange("nodeConfig.guestAccelerator[0].count", 4, 8)])
    assert count is not None  # the accelerator count is ForceNew itself


def test_paths_are_compared_as_the_table_writes_them() -> None:
    assert normalized('labels["accelplane.io/pool"]') == "labels.accelplane.io/pool"
    assert normalized("nodeConfig.guestAccelerator[1].type") == "nodeConfig.guestAccelerator.type"
    assert normalized("policy<json>.Statement[0]") == "policy.Statement"


def test_every_resource_type_the_stacks_create_is_in_the_force_new_table() -> None:
    """A type the table does not know would silently read as "update": the table must grow with the program."""
    known = table()
    missing = set()
    for stack in STACKS:
        for resource in _graph(stack_text(stack), stack)["resources"]:
            kind = resource["type"]
            bridged = resource["custom"] and not kind.startswith(("pulumi:providers:", "kubernetes:"))
            if bridged and kind not in known["types"]:
                missing.add(kind)
    assert missing == set()
    # and every entry says where it was read
    assert all(entry["source"] for entry in known["types"].values())
    assert force_new_rules("kubernetes:core/v1:ConfigMap")  # metadata and data


def test_a_software_version_going_down_is_flagged_in_every_format() -> None:
    from accelplane.diff.markdown import render_markdown
    from accelplane.diff.plan_diff import SoftwareChange, VersionChange

    change = SoftwareChange(kind="node pool", name="train", status="changed", profile=("a", "a"),
                            accelerator=("x", "x"), changes=(VersionChange("driver", "580.95.05", "570.172.08"),))
    diff = PlanDiff(stack="s", base_ref="HEAD", base_commit="0" * 40, base_resources=0, head_resources=0,
                    resources=[], introduced=[], resolved=[], software=[change])
    assert "driver: 580.95.05 → 570.172.08  (downgrade)" in render_table(diff)
    assert "**(downgrade)**" in render_markdown(diff)
    assert diff.to_json()["software"][0]["changes"][0]["downgrade"] is True


def test_a_single_host_tpu_pool_of_another_machine_type_is_replaced() -> None:
    """ct5lp-hightpu-8t/2x4 to ct5lp-hightpu-4t/2x2 read `~ nodeConfig.machineType`, `replace: 0`, no
    drain warning, while GKE recreates every TPU VM: a single-host TPU pool's shape is its machine type."""
    diff = _diff("tpu-prod", "        instance_type: ct5lp-hightpu-8t\n        tpu_topology: 2x4\n",
                 "        instance_type: ct5lp-hightpu-4t\n        tpu_topology: 2x2\n",
                 also=(("              weight: 10\n              accelerators_per_replica: 8\n",
                        "              weight: 10\n              accelerators_per_replica: 4\n"),))
    [pool] = [r for r in diff.resources if r.type == "gcp:container/nodePool:NodePool"]
    assert pool.name == "acme-tpu-infer-v5e-pool"
    assert pool.op == "delete-before-replace" and pool.symbol == "-+"
    assert "nodeConfig.machineType" in pool.forced_by
    assert pool.meaning is not None and "drained" in pool.meaning
    assert diff.summary()["replace"] >= 1


def test_a_gke_pool_whose_disk_changes_is_an_update_that_recreates_every_node() -> None:
    """The provider updates a GKE pool's disk size in place, and GKE recreates every node for it."""
    diff = _diff("tpu-prod", "        scaling: {min: 1, desired: 3, max: 8}\n        disk_gib: 300\n",
                 "        scaling: {min: 1, desired: 3, max: 8}\n        disk_gib: 400\n")
    [pool] = [r for r in diff.resources if r.type == "gcp:container/nodePool:NodePool"]
    assert pool.op == "update" and pool.symbol == "~" and not pool.replaces
    assert pool.meaning is not None and pool.meaning.startswith(
        "updated in place, but every node is recreated because nodeConfig.diskSizeGb changed")
    assert "the quota must hold the surge nodes" in pool.meaning
    text = render_table(diff)
    assert "! updated in place, but every node is recreated" in text
    from accelplane.diff.markdown import render_markdown

    markdown = render_markdown(diff)
    assert "1 pool with every node recreated" in markdown and "`acme-tpu-infer-h100-pool`" in markdown


def test_a_scaling_change_of_a_gke_pool_is_a_harmless_update() -> None:
    diff = _diff("tpu-prod", "        scaling: {min: 1, desired: 3, max: 8}\n",
                 "        scaling: {min: 1, desired: 3, max: 9}\n")
    pools = [r for r in diff.resources if r.type == "gcp:container/nodePool:NodePool"]
    assert [(p.op, p.meaning) for p in pools] == [("update", None)]


def test_the_picture_marks_a_pool_whose_machine_type_changes() -> None:
    """Only a change of node counts marked a pool in the Mermaid picture: a new machine type (every
    node replaced) left it unmarked."""
    from accelplane.cost.cloud_pricing import builtin_table
    from accelplane.cost.estimate import estimate_plan
    from accelplane.diff.cost import mermaid_picture

    text = stack_text("prod")
    base = _graph(text, "prod")
    head = _graph(text.replace("instance_type: g6e.2xlarge", "instance_type: g6e.4xlarge", 1), "prod")
    table = builtin_table("aws")
    picture = mermaid_picture(base, head, estimate_plan(head, "aws", "us-west-2", table),
                              estimate_plan(base, "aws", "us-west-2", table))
    [node] = [line for line in picture.splitlines() if "infer-l40s<br/>" in line]
    assert "g6e.4xlarge x 2/3/12<br/>was g6e.2xlarge x 2/3/12" in node, node
    pool_id = node.split("[", 1)[0].strip()
    marked = next(line for line in picture.splitlines() if line.strip().startswith("class ") and "changed" in line)
    assert pool_id in marked.split()[1].split(","), picture
