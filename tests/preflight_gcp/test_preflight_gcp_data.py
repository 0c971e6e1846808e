"""The data preflight reads on Google Cloud holds against the APIs' own documents: every regional
quota metric is one compute v1's `Quota.metric` enum lists, and the shipped custom role allows
exactly the calls a full run makes."""

from __future__ import annotations

import json
from pathlib import Path

import googleapiclient
import yaml

from accelplane.clouds.gcp.clients import PREFLIGHT_PERMISSIONS
from accelplane.clouds.gcp.preflight.quotas import quota_data
from tests.preflight_gcp.conftest import preflight, variant
from tests.support.gcp_capacity import Capacity
from tests.support.google_api_fake import GoogleApiFake

ROOT = Path(__file__).resolve().parents[2]
COMPUTE = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents" / "compute.v1.json"


def test_regional_quota_metrics_are_compute_metrics() -> None:
    metrics = set(json.loads(COMPUTE.read_text())["schemas"]["Quota"]["properties"]["metric"]["enum"])
    data = quota_data()
    named = {metric for entry in data["regional"].values() for key, metric in entry.items() if key != "source"}
    assert named and named <= metrics, named - metrics
    # Every entry names a source that is listed, and every listed source says where and what: a source
    # pasted over by two quota entries once parsed as null (`sources.cloud_quotas`) and still passed.
    for group in ("regional", "cloud_quotas"):
        for entry in data[group].values():
            sources = [entry.get("source")] if "source" in entry else [v["source"] for v in entry.values()]
            assert all(source in data["sources"] for source in sources), entry
    for name, source in data["sources"].items():
        assert isinstance(source, dict) and set(source) == {"url", "what"}, (name, source)
        assert source["url"].startswith("https://") and source["what"], (name, source)


def test_the_preflight_role_allows_exactly_what_a_run_calls(project: Capacity, fake: GoogleApiFake,
                                                            tmp_path: Path) -> None:
    preflight(project)
    # A pool requesting a calendar-mode future reservation reads the request.
    spot = "        capacity: {type: spot}\n        scaling: {min: 0, desired: 1, max: 2}"
    request = ("        capacity:\n          type: capacity_reservation\n          future_reservation: {zone: "
               "us-central1-a, machines: 2, start: 2026-12-21T00:00:00Z, end: 2027-01-04T00:00:00Z, max_usd: 60000}\n"
               "        scaling: {min: 0, desired: 0, max: 2}")
    preflight(project, variant(tmp_path, (spot, request)))
    # A second run whose reservation is not in the pool's zones also looks for it in every zone.
    key = next(k for k in fake.state.resources if k.endswith("/reservations/acme-v5p-2x2x4"))
    del fake.state.resources[key]
    preflight(project)
    called = set(fake.calls)
    assert called <= set(PREFLIGHT_PERMISSIONS), called - set(PREFLIGHT_PERMISSIONS)
    role = yaml.safe_load((ROOT / "docs" / "gcp" / "preflight-role.yaml").read_text())
    assert sorted(role["includedPermissions"]) == sorted({PREFLIGHT_PERMISSIONS[call] for call in called})
