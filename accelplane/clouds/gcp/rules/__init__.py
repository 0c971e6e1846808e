"""Google Cloud's policy rules (`rule_list`, by topic in the sub-packages) and how the neutral rules
read Google Cloud resources: `CLOUD_RULES`, this cloud's entry point in the `accelplane.rules` group."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.cloud_rules import CloudRules, NodePoolShape
from accelplane.rules.rule import Rule
from accelplane.rules.view import Resource, as_int, as_str, get, mapping


def _machine_type(node_pool: Resource) -> str:
    return as_str(node_pool.get("nodeConfig", "machineType"))


def _minimum_nodes(node_pool: Resource) -> int | None:
    autoscaling = mapping(node_pool.get("autoscaling"))
    if autoscaling:
        minimum = as_int(autoscaling.get("totalMinNodeCount"))
        return minimum if minimum is not None else as_int(autoscaling.get("minNodeCount"))
    if get(node_pool.props, "placementPolicy", "tpuTopology"):
        return None  # a multi-host TPU slice is fixed: GKE creates and removes its VMs together
    return as_int(node_pool.get("nodeCount"))


def _rules() -> Iterable[Rule]:
    # Imported on first call: the rule modules import neutral helpers that read CLOUD_RULES.
    from accelplane.clouds.gcp.rules.rule_list import RULES

    return RULES


CLOUD_RULES = CloudRules(
    cloud="gcp",
    node_pools=(NodePoolShape(
        t.GKE_NODE_POOL, ("nodeConfig", "labels"), _machine_type, _minimum_nodes,
        # In place since terraform-provider-google 5.10 (hashicorp/terraform-provider-google#16566), and
        # GKE recreates every node for them ("Manually upgrade a node pool" / "Change node pool machine
        # attributes": a surge upgrade); a node version upgrade is the same roll.
        recreating_inputs=("nodeConfig.machineType", "nodeConfig.diskSizeGb", "nodeConfig.diskType",
                           "nodeConfig.imageType", "version"),
    ),),
    # A destroyed crypto key version takes the buckets' and Secrets' data with it.
    stateful_types=frozenset({t.GCS_BUCKET, t.GCP_KMS_CRYPTO_KEY, t.GCP_SECRET}),
    load_rules=_rules,
    force_new_table=Path(__file__).parents[1] / "force_new.json",
    review_inputs={
        t.GKE_NODE_POOL: ("nodeConfig.machineType", "placementPolicy.tpuTopology", "nodeCount",
                          "autoscaling.totalMaxNodeCount", "version"),
        "gcp:container/cluster:Cluster": ("minMasterVersion",),
    },
)
