"""docs/gcp/verify-role.yaml: the custom role shipped for verify allows every call a full run makes,
and nothing verify does not call."""

from __future__ import annotations

from pathlib import Path

import yaml

from accelplane.clouds.gcp.clients import PERMISSIONS

ROLE = Path(__file__).resolve().parents[2] / "docs" / "gcp" / "verify-role.yaml"


def test_the_role_allows_every_call_of_a_full_run_and_no_more(tpu_prod):
    clients = tpu_prod.clients()
    tpu_prod.verify(clients=clients)
    called = clients.methods
    assert "storage.buckets.getIamPolicy" in called  # Cloud Storage (the emulator) is part of the run
    assert called <= set(PERMISSIONS), called - set(PERMISSIONS)
    role = yaml.safe_load(ROLE.read_text())
    assert sorted(role["includedPermissions"]) == sorted({PERMISSIONS[call] for call in called})
    assert role["stage"] == "GA"
