"""`accelplane preflight` on Google Cloud: each verdict for quotas, zones, reservations and the GKE
version, against the discovery-validated fake."""

from __future__ import annotations

from pathlib import Path

from accelplane.preflight.results import Status
from tests.preflight.conftest import only
from tests.preflight_gcp.conftest import preflight, variant
from tests.support.gcp_capacity import Capacity


def test_a_project_where_the_stack_fits_is_clear(project: Capacity) -> None:
    report = preflight(project)
    assert report.blocking == [] and not report.failed
    assert report.where == "project acme-ml-tpu-prod, region us-central1"
    # Spot H100 (train-h100: 2 max + 1 surge nodes x 8 GPUs) against the preemptible quota.
    spot = only(report, "quota.accelerator", "PREEMPTIBLE_NVIDIA_H100_GPUS")
    assert spot.status is Status.passed and spot.needs.startswith("24 GPUs")
    # On-demand H100 is a Cloud Quotas quota (limit only): fits, with the usage gap said.
    on_demand = only(report, "quota.accelerator", "GPUS-PER-GPU-FAMILY-per-project-region")
    assert on_demand.status is Status.warning and "gpu_family=NVIDIA_H100" in on_demand.subject
    # The reserved v5p slice is judged by its reservation, not a quota: 2 slices x 4 VMs.
    assert only(report, "reservation").needs == "8xct5p-hightpu-4t in us-central1-a"
    assert not [c for c in report.checks if c.check == "quota.accelerator" and "v5p" in c.subject]


def test_tpu_quota_of_zero_in_the_pools_region(project: Capacity) -> None:
    project.set_quota("TPU_LITE_PODSLICE_V5", 0)
    check = only(preflight(project), "quota.accelerator", "TPU_LITE_PODSLICE_V5")
    assert check.status is Status.failed
    assert check.needs.startswith("48 TPU chips (infer-v5e 6xct5lp-hightpu-8t (8 each))")
    assert "request TPU_LITE_PODSLICE_V5 of at least 48 in us-central1" in check.fix


def test_usage_by_other_workloads_counts(project: Capacity) -> None:
    project.set_quota("PREEMPTIBLE_NVIDIA_H100_GPUS", 32, usage=16)
    check = only(preflight(project), "quota.accelerator", "PREEMPTIBLE_NVIDIA_H100_GPUS")
    assert check.status is Status.failed and check.headroom == "-8" and "of at least 40" in check.fix


def test_a_cloud_quota_below_the_need(project: Capacity) -> None:
    project.cloud_quota("GPUS-PER-GPU-FAMILY-per-project-region", [
        {"dimensions": {"region": "us-central1", "gpu_family": "NVIDIA_H100"}, "details": {"value": "4"}},
        {"dimensions": {"region": "us-central1", "gpu_family": "NVIDIA_A100"}, "details": {"value": "64"}},
    ])
    check = only(preflight(project), "quota.accelerator", "GPUS-PER-GPU-FAMILY")
    assert check.status is Status.failed and "the pools need 9, the quota is 4" in check.message


def test_a_machine_type_not_offered_in_the_pools_zone(project: Capacity) -> None:
    project.withdraw("us-central1-a", "ct5lp-hightpu-8t")
    check = only(preflight(project), "offering.zone", "infer-v5e")
    assert check.status is Status.failed and "ct5lp-hightpu-8t in us-central1-a" in check.message


def test_an_undersized_reservation(project: Capacity) -> None:
    project.reserve("us-central1-a", "acme-v5p-2x2x4", "ct5p-hightpu-4t", count=8, in_use=4)
    check = only(preflight(project), "reservation")
    assert check.status is Status.failed and "4 of its 8 nodes are free, the pool needs 8" in check.message
    assert "resize it to at least 12" in check.fix


def test_an_expiring_reservation_of_the_wrong_machine_type(project: Capacity) -> None:
    project.reserve("us-central1-a", "acme-v5p-2x2x4", "ct5lp-hightpu-4t", count=64,
                    delete_at="2026-12-07T00:00:00Z")
    check = only(preflight(project), "reservation")
    assert check.status is Status.failed
    assert "it reserves ct5lp-hightpu-4t, the pool runs ct5p-hightpu-4t" in check.message
    # From 2026-12-05 12:00 (the tests' now): 36 hours, not "1 days".
    assert "it is deleted at 2026-12-07 00:00 UTC (36 hours left, at least 7 days wanted)" in check.message


def test_a_missing_reservation(project: Capacity, fake) -> None:
    key = next(k for k in fake.state.resources if k.endswith("/reservations/acme-v5p-2x2x4"))
    del fake.state.resources[key]
    check = only(preflight(project), "reservation")
    assert check.status is Status.failed
    assert check.message == "no reservation acme-v5p-2x2x4 in any zone of project acme-ml-tpu-prod"


def test_a_reservation_in_another_zone_says_where_it_is(project: Capacity, fake) -> None:
    key = next(k for k in fake.state.resources if k.endswith("/reservations/acme-v5p-2x2x4"))
    del fake.state.resources[key]
    # The same name in another zone, and another reservation beside it (the filter keeps only the name).
    project.reserve("us-central1-c", "acme-v5p-2x2x4", "ct5p-hightpu-4t", count=64)
    project.reserve("us-central1-c", "acme-other", "ct5p-hightpu-4t", count=8)
    check = only(preflight(project), "reservation")
    assert check.status is Status.failed
    assert check.message == ("reservation acme-v5p-2x2x4 is in us-central1-c, not in the pool's zones (us-central1-a):"
                             " the pool's nodes cannot use it there")
    assert check.fix == "run the pool in us-central1-c (its zones), or reserve in us-central1-a"
    assert "compute.reservations.aggregatedList" in fake.calls


def test_a_gke_version_the_location_no_longer_offers(project: Capacity) -> None:
    project.server_config["validMasterVersions"] = ["1.34.1-gke.1000000"]
    check = only(preflight(project), "cluster.version")
    assert check.status is Status.failed and "1.33.5-gke.1162000 is not in GKE's valid control-plane" in check.message


def test_a_release_channel_is_judged_on_its_own_versions(project: Capacity, tmp_path: Path) -> None:
    stack = variant(tmp_path, ('      gke_version: "1.33.5-gke.1162000"\n', "      release_channel: REGULAR\n"))
    project.server_config["channels"] = [{"channel": "REGULAR", "validVersions": ["1.34.1-gke.1000000"]},
                                         {"channel": "STABLE", "validVersions": ["1.33.5-gke.1162000"]}]
    check = only(preflight(project, stack), "cluster.version")
    assert check.status is Status.failed and "1.33 is not in the REGULAR channel" in check.message
    project.server_config["channels"][0]["validVersions"].append("1.33.6-gke.1000000")
    assert only(preflight(project, stack), "cluster.version").status is Status.passed


def test_a_family_with_no_known_quota_is_unknown(project: Capacity, tmp_path: Path) -> None:
    # The v5p pool on demand (no reservation): no sourced quota for on-demand TPU v5p chips.
    stack = variant(tmp_path, ("        capacity: {type: capacity_reservation, reservation: acme-v5p-2x2x4}\n", ""))
    report = preflight(project, stack)
    check = only(report, "quota.accelerator", "train-v5p")
    assert check.status is Status.unknown and "no known quota for on-demand tpu-v5p-slice TPU chips" in check.message
    assert report.failed and not preflight(project, stack, allow_unknown=True).failed


def test_preflight_calls_only_reads(project: Capacity, fake) -> None:
    preflight(project)
    assert all(call.rsplit(".", 1)[-1] in ("get", "getServerConfig") for call in fake.calls), fake.calls
