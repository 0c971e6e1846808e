"""docs/gcp/verify-role.yaml: the custom role shipped for verify allows every call a full run makes,
and nothing verify does not call."""

from __future__ import annotations

from pathlib import Path

import yaml

from accelplane.clouds.gcp.clients import PERMISSIONS, RESTORE_DRILL_PERMISSIONS
from accelplane.clouds.gcp.verify.live_cluster import CLUSTER_PERMISSIONS
from tests.verify_gcp.test_verify_gcp_checkpoint_drill import _seed

ROLES = Path(__file__).resolve().parents[2] / "docs" / "gcp"
ROLE = ROLES / "verify-role.yaml"


def test_the_role_allows_every_call_of_a_full_run_and_no_more(tpu_prod):
    _seed(tpu_prod)
    clients = tpu_prod.clients()
    tpu_prod.verify(clients=clients, checkpoint_drill="download")
    called = clients.methods
    assert "storage.objects.get" in called  # the checkpoint drill read the newest checkpoint
    assert "storage.buckets.getIamPolicy" in called  # Cloud Storage (the emulator) is part of the run
    assert called <= set(PERMISSIONS), called - set(PERMISSIONS)
    role = yaml.safe_load(ROLE.read_text())
    # The Gateway's policies are read in the cluster (test_verify_gcp_gateway_policies.py), not through a
    # Google API client: their permission comes beside the calls'.
    assert sorted(role["includedPermissions"]) == sorted({PERMISSIONS[call] for call in called} | CLUSTER_PERMISSIONS)
    assert role["stage"] == "GA"


def test_the_restore_drill_role_adds_exactly_what_the_round_trip_calls(tpu_prod):
    _seed(tpu_prod)
    clients = tpu_prod.clients()
    tpu_prod.verify(clients=clients, checkpoint_drill="restore")
    extra = clients.methods - set(PERMISSIONS)
    assert extra == set(RESTORE_DRILL_PERMISSIONS), extra ^ set(RESTORE_DRILL_PERMISSIONS)
    role = yaml.safe_load((ROLES / "restore-drill-role.yaml").read_text())
    needed = {RESTORE_DRILL_PERMISSIONS[call] for call in extra} - {None}
    assert sorted(role["includedPermissions"]) == sorted(needed)
