"""A GKE pool on Dynamic Workload Scheduler flex-start: tpu-prod's H100 training pool moved from spot to
flex-start. What the node pool must hold is written from GKE's flex-start guide ("Run a small batch
workload with GPUs and flex-start provisioning mode": `--flex-start`, autoscaling from zero with location
policy ANY, `--reservation-affinity=none`, `--no-enable-autorepair`) and checked against container v1's
discovery document; what GKE does not offer is refused with the field (accelplane/clouds/gcp/flex_start.py
names the page and its facts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accelplane.config.loader import load_stack_file
from accelplane.cost.cloud_pricing import builtin_table
from accelplane.cost.estimate import estimate_plan
from accelplane.program import offline_graph
from tests.gcp.gcp_discovery import check_resources
from tests.support.stack_files import edit_problems, edited_stack

SPOT = "        capacity: {type: spot}\n        scaling: {min: 0, desired: 1, max: 2}\n        disk_gib: 500\n"
FLEX = "        capacity: {type: on_demand, flex_start: true}\n        scaling: {min: 0, desired: 0, max: 2}\n" \
       "        disk_gib: 500\n"


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Any:
    stack = edited_stack(tmp_path_factory.mktemp("flex"), (SPOT, FLEX), stack="tpu-prod")
    return stack, offline_graph(stack)


def _pool(graph: Any, name: str) -> Any:
    [found] = [r for r in graph.resources if r.type == "gcp:container/nodePool:NodePool" and r.name == name]
    return found


def test_the_pool_is_provisioned_by_flex_start_from_zero(plan) -> None:
    _, graph = plan
    pool = _pool(graph, "acme-tpu-train-h100-pool").inputs
    assert pool["nodeConfig"]["flexStart"] is True
    assert pool["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert pool["nodeConfig"]["spot"] is False
    assert pool["autoscaling"] == {"totalMinNodeCount": 0, "totalMaxNodeCount": 2, "locationPolicy": "ANY"}
    assert pool["initialNodeCount"] == 0
    assert pool["management"]["autoRepair"] is False
    # The other pools keep GKE's repairs and their own capacity.
    other = _pool(graph, "acme-tpu-infer-h100-pool").inputs
    assert other["management"]["autoRepair"] is True and "flexStart" not in other["nodeConfig"]
    report = check_resources([_pool(graph, "acme-tpu-train-h100-pool")])
    assert not report.problems, report.problems  # every key and value is container v1's


def test_cost_says_flex_start_is_priced_at_most_at_on_demand(plan) -> None:
    stack, graph = plan
    estimate = estimate_plan(graph.to_json(), "gcp", stack.platform.region, builtin_table("gcp"), {})
    [line] = [item for item in estimate.items if item.pool == "train-h100"]
    assert line.pricing == "on-demand" and "Dynamic Workload Scheduler prices" in (line.note or "")


@pytest.mark.parametrize(
    ("edits", "field", "expected"),
    [
        ((("capacity: {type: spot}\n        scaling: {min: 0, desired: 1",
           "capacity: {type: spot, flex_start: true}\n        scaling: {min: 0, desired: 1"),),
         "node_pools[3].capacity", "flex_start provisions on-demand capacity: not with spot or a reservation"),
        (((SPOT, FLEX.replace("desired: 0", "desired: 1")),), "node_pools[3].scaling",
         "a flex-start pool starts empty"),
        # GPUs need GKE 1.32.2-gke.1652000 or later.
        (((SPOT, FLEX), ('gke_version: "1.33.5-gke.1162000"', 'gke_version: "1.32.1-gke.1729000"'),
          ('kubernetes_version: "1.33"', 'kubernetes_version: "1.32"')),
         "node_pools[3].capacity.flex_start", "flex-start for GPUs needs GKE 1.32.2-gke.1652000 or later"),
        # TPU v5p flex-start is in us-east5-a only; a multi-host slice is refused outright.
        ((("capacity: {type: capacity_reservation, reservation: acme-v5p-2x2x4}\n        scaling: {min: 2, desired: 2",
           "capacity: {type: on_demand, flex_start: true}\n        scaling: {min: 0, desired: 0"),),
         "node_pools[1].capacity.flex_start", "flex-start takes single-host TPU slices only, not 2x2x4"),
        ((("capacity: {type: capacity_reservation, reservation: acme-v5p-2x2x4}\n        scaling: {min: 2, desired: 2",
           "capacity: {type: on_demand, flex_start: true}\n        scaling: {min: 0, desired: 0"),),
         "node_pools[1].capacity.flex_start", "flex-start has TPU v5p in us-east5-a only, not us-central1-a"),
        ((("        instance_type: n2-standard-8\n        scaling: {min: 2, desired: 2, max: 4}\n",
           "        instance_type: n2-standard-8\n        capacity: {flex_start: true}\n"
           "        scaling: {min: 0, desired: 0, max: 4}\n"),),
         "node_pools[0].capacity.flex_start", "flex-start provisions GPUs and TPUs; n2-standard-8 has neither"),
        (((SPOT, FLEX.replace("flex_start: true}", "queued_provisioning: true}")),), "node_pools[3].capacity",
         "queued_provisioning is flex-start with queued provisioning: set flex_start too"),
        ((("capacity: {type: capacity_reservation, reservation: acme-v5p-2x2x4}\n        scaling: {min: 2, desired: 2",
           "capacity: {type: on_demand, flex_start: true, queued_provisioning: true}\n"
           "        scaling: {min: 0, desired: 0"),),
         "node_pools[1].capacity.queued_provisioning", "queued provisioning is for GPU node pools"),
    ],
    ids=["spot", "not-empty", "old-gke", "multi-host-tpu", "tpu-zone", "cpu-pool", "queued-without-flex-start",
         "queued-tpu"],
)
def test_what_gke_does_not_offer_is_refused_naming_the_field(tmp_path: Path, edits, field, expected) -> None:
    problems = edit_problems(tmp_path, *edits, stack="tpu-prod")
    assert any(f.removeprefix("accelplane:platform.") == field and expected in m for f, m in problems), problems


def test_the_flex_start_stack_loads_from_its_file(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.tpu-prod.yaml"
    edited_stack(tmp_path, (SPOT, FLEX), stack="tpu-prod")
    assert load_stack_file(path, stack="tpu-prod").platform.node_pools[3].capacity.flex_start is True


def test_a_queued_provisioning_pool_is_flex_start_that_gets_nodes_only_for_provisioning_requests(tmp_path) -> None:
    """GKE's queued provisioning guide creates the pool with flex-start and queued provisioning: the same
    flex-start node pool, with `queuedProvisioning.enabled` (container v1 NodePool.queuedProvisioning)."""
    queued = FLEX.replace("flex_start: true}", "flex_start: true, queued_provisioning: true}")
    stack = edited_stack(tmp_path, (SPOT, queued), stack="tpu-prod")
    graph = offline_graph(stack)
    pool = _pool(graph, "acme-tpu-train-h100-pool")
    assert pool.inputs["queuedProvisioning"] == {"enabled": True}
    assert pool.inputs["nodeConfig"]["flexStart"] is True
    assert pool.inputs["autoscaling"] == {"totalMinNodeCount": 0, "totalMaxNodeCount": 2, "locationPolicy": "ANY"}
    report = check_resources([pool])
    assert not report.problems, report.problems
    assert "queuedProvisioning" not in _pool(graph, "acme-tpu-infer-h100-pool").inputs
