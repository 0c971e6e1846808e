"""The checkpoint drills on Cloud Storage (the real gcp-storage-emulator): the newest checkpoint
reads back intact, and `--checkpoint-drill restore` writes, restores and deletes a scratch
checkpoint, or names what would stop a restore (retention, the CMEK key, permissions) and then
writes nothing."""

from __future__ import annotations

import hashlib
import json

import pytest

from accelplane.clouds.gcp.verify.gcs_checkpoints import GcsCheckpoints
from accelplane.verify.restore_drill import SCRATCH_MARK, ScratchGuard
from accelplane.verify.results import CheckId, Status
from tests.support.gcp_platform import Deployment

CHECKPOINTS = "acme-tpu-checkpoints-bucket"
KEY = "projects/acme-ml-tpu-prod/locations/us-central1/keyRings/acme-tpu/cryptoKeys/data"
DRILLS = (CheckId.checkpoint_present, CheckId.checkpoint_age, CheckId.checkpoint_integrity, CheckId.checkpoint_restore)


def _seed(d: Deployment, *, step: int = 1000, corrupt: str | None = None) -> str:
    """A checkpoint as the pretrain job leaves it: shards, then the manifest last."""
    bucket = d.live_name(CHECKPOINTS)
    files = []
    for index in range(2):
        data = bytes([index + 1]) * (300_000 + index)
        path = f"model-{index:05d}.safetensors"
        d.gcs.upload(bucket, f"pretrain/step-{step:08d}/{path}", data)
        files.append({"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    if corrupt:
        size = next(f["size"] for f in files if f["path"] == corrupt)
        d.gcs.upload(bucket, f"pretrain/step-{step:08d}/{corrupt}", b"\0" * size)
    d.gcs.upload(bucket, f"pretrain/step-{step:08d}/manifest.json", json.dumps({"files": files}).encode())
    return bucket


def _names(d: Deployment, bucket: str) -> list[str]:
    answer = d.client("storage").objects().list(bucket=bucket).execute()
    return sorted(item["name"] for item in answer.get("items") or [])


def _drills(report) -> dict[str, tuple[Status, str]]:
    return {r.check: (r.status, r.message) for r in report.results if r.check in DRILLS}


def test_the_newest_checkpoint_reads_back_intact(tpu_prod):
    _seed(tpu_prod, step=999)
    _seed(tpu_prod, step=1000)
    drills = _drills(tpu_prod.verify(checkpoint_drill="download"))
    assert drills[CheckId.checkpoint_present][0] is Status.passed
    assert "step-00001000" in drills[CheckId.checkpoint_present][1]
    assert drills[CheckId.checkpoint_integrity] == (
        Status.passed, "pretrain: 2 files, 600001 bytes match the manifest's size and sha256 (downloaded and hashed)"
    )
    assert CheckId.checkpoint_restore not in drills


def test_a_corrupted_shard_fails_the_integrity_check(tpu_prod):
    _seed(tpu_prod, corrupt="model-00001.safetensors")
    status, message = _drills(tpu_prod.verify(checkpoint_drill="download"))[CheckId.checkpoint_integrity]
    assert status is Status.failed
    assert "model-00001.safetensors: sha256" in message


def test_no_checkpoint_under_the_prefix_fails(tpu_prod):
    status, message = _drills(tpu_prod.verify(checkpoint_drill="download"))[CheckId.checkpoint_present]
    assert status is Status.failed and "gs://" in message and "pretrain/" in message


def test_restore_round_trip_passes_and_leaves_only_the_real_checkpoint(tpu_prod):
    bucket = _seed(tpu_prod)
    before = _names(tpu_prod, bucket)
    clients = tpu_prod.clients()
    report = tpu_prod.verify(checkpoint_drill="restore", clients=clients)
    status, message = _drills(report)[CheckId.checkpoint_restore]
    assert status is Status.passed, message
    assert "restored them to restored/" in message and SCRATCH_MARK in message
    assert _names(tpu_prod, bucket) == before  # the scratch objects are gone, the checkpoint untouched
    assert {"storage.objects.insert", "storage.objects.rewrite", "storage.objects.delete"} <= clients.methods


def test_a_retention_policy_stops_the_restore_before_anything_is_written(tpu_prod):
    bucket = _seed(tpu_prod)
    tpu_prod.client("storage").buckets().patch(
        bucket=bucket, body={"retentionPolicy": {"retentionPeriod": str(30 * 86400)}}
    ).execute()
    before = _names(tpu_prod, bucket)
    clients = tpu_prod.clients()
    status, message = _drills(tpu_prod.verify(checkpoint_drill="restore", clients=clients))[CheckId.checkpoint_restore]
    assert status is Status.failed
    assert "retention policy (30 days, not locked)" in message and "nothing was written" in message
    assert _names(tpu_prod, bucket) == before
    assert "storage.objects.insert" not in clients.methods


def test_a_cmek_key_cloud_storage_may_not_use_stops_the_restore(tpu_prod):
    _seed(tpu_prod)
    keys = tpu_prod.client("cloudkms").projects().locations().keyRings().cryptoKeys()
    policy = keys.getIamPolicy(resource=KEY).execute()
    for binding in policy["bindings"]:
        binding["members"] = [m for m in binding["members"] if "gs-project-accounts" not in m]
    keys.setIamPolicy(resource=KEY, body={"policy": policy}).execute()
    status, message = _drills(tpu_prod.verify(checkpoint_drill="restore"))[CheckId.checkpoint_restore]
    assert status is Status.failed
    assert "service-314159265358@gs-project-accounts.iam.gserviceaccount.com" in message and KEY in message


def test_a_disabled_cmek_key_stops_the_restore(tpu_prod):
    _seed(tpu_prod)
    # What KMS shows after `gcloud kms keys versions disable 1`: the primary version DISABLED.
    tpu_prod.fake.state.resources[f"cloudkms/v1/v1/{KEY}"]["primary"]["state"] = "DISABLED"
    status, message = _drills(tpu_prod.verify(checkpoint_drill="restore"))[CheckId.checkpoint_restore]
    assert status is Status.failed and "no enabled primary version (DISABLED)" in message


def test_missing_object_permissions_are_named(tpu_prod):
    """The emulator evaluates no IAM (testIamPermissions grants all), so this check is served by
    the Google API fake, which answers testIamPermissions with only what the test grants."""
    bucket = tpu_prod.live_name(CHECKPOINTS)
    fake = tpu_prod.fake
    fake.put("storage", "v1", f"b/{bucket}", {"name": bucket})
    fake.handle(
        "storage.buckets.testIamPermissions",
        lambda _state, _call: {"permissions": ["storage.objects.list", "storage.objects.get"]},
    )
    clients = tpu_prod.clients(endpoints={**tpu_prod.clients().endpoints, "storage": fake.endpoint("storage", "v1")})
    blockers = GcsCheckpoints(clients, bucket).restore_blockers("pretrain/")
    assert blockers == [f"these credentials lack storage.objects.create, storage.objects.delete on gs://{bucket}"]


def test_the_drill_refuses_to_write_outside_its_scratch_prefix():
    guard = ScratchGuard("pretrain/.accelplane-restore-drill-x/")
    assert guard.check("pretrain/.accelplane-restore-drill-x/a.bin")
    for key in ("pretrain/step-1/manifest.json", "pretrain/.accelplane-restore-drill-x/../step-1/a"):
        with pytest.raises(ValueError):
            guard.check(key)
