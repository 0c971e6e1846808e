"""Component arguments refuse what Google would refuse (or what would be silently wrong), before any run."""

from __future__ import annotations

from typing import Any

import pytest

from accelplane.clouds.gcp.components.bucket import SecureBucketArgs, StorageClassTransition
from accelplane.clouds.gcp.components.cluster import GkeClusterArgs
from accelplane.clouds.gcp.components.encryption_key import EncryptionKeyArgs
from accelplane.clouds.gcp.components.inference_endpoint import InferenceEndpointArgs, armor_rules
from accelplane.clouds.gcp.components.node_pool import Autoscaling, GpuSpec, NodePoolArgs, NodeTaint
from accelplane.clouds.gcp.components.node_service_account import NodeServiceAccountArgs
from accelplane.clouds.gcp.components.secret_store import SecretSpec, SecretStoreArgs
from accelplane.clouds.gcp.components.workload_access import BucketGrant

POOL: dict[str, Any] = {
    "pool_name": "p",
    "cluster_id": "c",
    "location": "us-east5",
    "node_locations": ["us-east5-a"],
    "machine_type": "ct5p-hightpu-4t",
    "node_service_account_email": "n@p.iam.gserviceaccount.com",
    "kubernetes_version": "1.33",
    "disk_size_gb": 100,
    "node_labels": {},
    "taints": [],
    "labels": {},
}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({}, "exactly one of node_count and autoscaling"),
        ({"node_count": 4, "autoscaling": Autoscaling(0, 4)}, "exactly one of node_count and autoscaling"),
        ({"node_count": -1}, "must not be negative"),
        ({"node_count": 4, "node_locations": []}, "at least one zone"),
        ({"node_count": 4, "spot": True, "reservation": "r"}, "spot capacity cannot consume a reservation"),
        ({"node_count": 4, "tpu_topology": "2x2x4", "node_locations": ["us-east5-a", "us-east5-b"]},
         "compact placement needs exactly one zone"),
        ({"node_count": 4, "compact_placement": True, "node_locations": ["us-east5-a", "us-east5-b"]},
         "compact placement needs exactly one zone"),
        ({"node_count": 4, "tpu_topology": "2x2x4", "gpu": GpuSpec("nvidia-h100-80gb", 8, "LATEST")},
         "GPU and TPU settings exclude each other"),
    ],
)
def test_node_pool_args_refuse_impossible_pools(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        NodePoolArgs(**{**POOL, **changes})


def test_node_pool_parts_refuse_values_google_does_not_know() -> None:
    with pytest.raises(ValueError, match="effect 'NoSchedule'"):
        NodeTaint("google.com/tpu", "present", "NoSchedule")  # the Kubernetes spelling, not GKE's
    with pytest.raises(ValueError, match="GPU driver version 'R535'"):
        GpuSpec("nvidia-h100-80gb", 8, "R535")
    with pytest.raises(ValueError, match="GPU count"):
        GpuSpec("nvidia-h100-80gb", 0, "DEFAULT")
    with pytest.raises(ValueError, match="autoscaling"):
        Autoscaling(3, 2)
    with pytest.raises(ValueError, match="autoscaling"):
        Autoscaling(0, 0)
    assert NodePoolArgs(**{**POOL, "node_count": 4, "tpu_topology": "2x2x4"}).placement_is_compact


def test_other_args_refuse_what_google_refuses() -> None:
    with pytest.raises(ValueError, match="service account id"):
        NodeServiceAccountArgs(account_id="Nodes_SA", project="p")
    with pytest.raises(ValueError, match="service account id"):
        NodeServiceAccountArgs(account_id="nodes", project="p")  # shorter than 6
    with pytest.raises(ValueError, match="rotation_days"):
        EncryptionKeyArgs(key_ring_id="r", key_name="k", encrypter_decrypter_members=[], labels={}, protect=False,
                          rotation_days=0)
    with pytest.raises(ValueError, match="release_channel"):
        GkeClusterArgs(cluster_name="c", project="p", location="us-east5", kubernetes_version="1.33", network_id="n",
                       subnet_id="s", pods_range_name="pods", services_range_name="services", api_allowed_cidrs=[],
                       secrets_key_id="k", node_service_account_email="e", labels={}, deletion_protection=False,
                       release_channel="stable")
    with pytest.raises(ValueError, match="tls_profile"):
        InferenceEndpointArgs(allowed_cidrs=["203.0.113.0/24"], labels={}, tls_profile="COMPATIBLE")
    with pytest.raises(ValueError, match="at least one CIDR"):
        InferenceEndpointArgs(allowed_cidrs=[], labels={})
    with pytest.raises(ValueError, match="storage class 'GLACIER'"):
        StorageClassTransition(30, "GLACIER")
    with pytest.raises(ValueError, match="storage class"):
        SecureBucketArgs(role="logs", location="us-east5", kms_key_id="k", key_grants=[], labels={}, protect=False,
                         storage_class="REGIONAL")
    with pytest.raises(ValueError, match="access 'admin'"):
        BucketGrant("datasets", "b", "admin")
    with pytest.raises(ValueError, match="quotes or backslashes"):
        BucketGrant("datasets", "b", "read", prefix='runs/") || true || ("')
    with pytest.raises(ValueError, match="undeclared secrets: typo"):
        SecretStoreArgs(secrets=[SecretSpec("hf-token")], region="us-east5", kms_key_id="k", key_grants=[],
                        values={"typo": "v"}, labels={}, protect=False)


def test_armor_rules_split_ranges_ten_per_rule_without_duplicates() -> None:
    cidrs = [f"198.51.100.{i}/32" for i in range(25)] + ["198.51.100.0/32"]
    rules = armor_rules(cidrs)
    sizes = [len(r["match"]["config"]["src_ip_ranges"]) for r in rules[:-1]]  # type: ignore[index]
    assert sizes == [10, 10, 5]
    assert [r["priority"] for r in rules] == [1000, 1001, 1002, 2147483647]
