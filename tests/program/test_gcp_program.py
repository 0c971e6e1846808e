"""The Google Cloud composition: what tpu-prod's declaration becomes under the mocks — one GKE node
pool per multi-host TPU slice with exactly its VMs and a compact placement, the GPU pool's
accelerators and driver mode, reservations and spot, and every resource through the provider for
the declared project and region."""

from __future__ import annotations

from typing import Any

import pytest

from accelplane.engine.graph import OfflineGraph, RecordedResource

NODE_POOL = "gcp:container/nodePool:NodePool"


@pytest.fixture(scope="module")
def tpu_prod(tpu_prod_graph: OfflineGraph) -> OfflineGraph:
    return tpu_prod_graph  # built once per test process (tests/conftest.py)


def _pool(graph: OfflineGraph, name: str) -> RecordedResource:
    return next(r for r in graph.resources if r.type == NODE_POOL and r.inputs.get("name") == name)


def _config(pool: RecordedResource) -> dict[str, Any]:
    return pool.inputs["nodeConfig"]


def test_each_multi_host_slice_is_its_own_pool_of_exactly_its_vms(tpu_prod: OfflineGraph) -> None:
    # 2x2x4 on ct5p-hightpu-4t is 16 chips on four 4-chip VMs; the pool declares two slices.
    slices = [r for r in tpu_prod.resources if r.type == NODE_POOL and r.inputs["name"].startswith("train-v5p-")]
    assert sorted(r.inputs["name"] for r in slices) == ["train-v5p-s0", "train-v5p-s1"]
    for pool in slices:
        assert pool.inputs["nodeCount"] == 4, pool.name
        assert "autoscaling" not in pool.inputs, pool.name
        assert pool.inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "2x2x4"}, pool.name
        assert pool.inputs["nodeLocations"] == ["us-central1-a"], pool.name
        assert _config(pool)["machineType"] == "ct5p-hightpu-4t", pool.name
        assert _config(pool)["reservationAffinity"] == {
            "consumeReservationType": "SPECIFIC_RESERVATION",
            "key": "compute.googleapis.com/reservation-name",
            "values": ["acme-v5p-2x2x4"],
        }, pool.name
        assert pool.replace_on_changes == ("nodeConfig.machineType", "placementPolicy.tpuTopology"), pool.name


def test_a_single_host_tpu_pool_scales_node_by_node(tpu_prod: OfflineGraph) -> None:
    pool = _pool(tpu_prod, "infer-v5e")
    assert pool.inputs["autoscaling"]["totalMinNodeCount"] == 1
    assert pool.inputs["autoscaling"]["totalMaxNodeCount"] == 6
    assert "placementPolicy" not in pool.inputs or not pool.inputs["placementPolicy"].get("tpuTopology")
    assert _config(pool)["machineType"] == "ct5lp-hightpu-8t"


def test_the_gpu_pool_carries_its_accelerators_and_driver_mode(tpu_prod: OfflineGraph) -> None:
    pool = _pool(tpu_prod, "train-h100")
    config = _config(pool)
    assert config["guestAccelerators"] == [{
        "type": "nvidia-h100-80gb", "count": 8, "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"},
    }]
    assert config["spot"] is True and config["diskSizeGb"] == 500
    assert config["labels"]["accelplane.io/accelerator"] == "nvidia-hgx-h100-8gpu"
    assert config["labels"]["versions.accelplane.io/cuda"] == "12.8"


def test_every_resource_goes_through_the_declared_project_s_provider(tpu_prod: OfflineGraph) -> None:
    providers = [r for r in tpu_prod.resources if r.type == "pulumi:providers:gcp"]
    assert len(providers) == 1
    assert providers[0].inputs["project"] == "acme-ml-tpu-prod" and providers[0].inputs["region"] == "us-central1"
    reference = f"{providers[0].urn}::{providers[0].id}"
    gcp = [r for r in tpu_prod.resources if r.type.startswith("gcp:")]
    assert gcp and [r.name for r in gcp if r.provider != reference] == []


def test_no_aws_resource_on_a_google_cloud_stack(tpu_prod: OfflineGraph) -> None:
    assert [r.type for r in tpu_prod.resources if r.type.startswith(("aws:", "pulumi:providers:aws"))] == []


def test_the_gateway_serves_the_declared_certificate_through_its_map(tpu_prod: OfflineGraph) -> None:
    [certificate_map] = [r for r in tpu_prod.resources
                         if r.type == "gcp:certificatemanager/certificateMap:CertificateMap"]
    [entry] = [r for r in tpu_prod.resources
               if r.type == "gcp:certificatemanager/certificateMapEntry:CertificateMapEntry"]
    assert certificate_map.inputs["name"] == "acme-tpu-inference"
    assert entry.inputs["matcher"] == "PRIMARY" and entry.inputs["map"] == "acme-tpu-inference"
    assert entry.inputs["certificates"] == [
        "projects/acme-ml-tpu-prod/locations/global/certificates/llm-acme-example"]
    [gateway] = [r for r in tpu_prod.resources if r.type == "kubernetes:gateway.networking.k8s.io/v1:Gateway"]
    assert gateway.inputs["metadata"]["annotations"]["networking.gke.io/certmap"] == "acme-tpu-inference"
