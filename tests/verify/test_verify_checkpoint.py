"""The checkpoint restore drill against the dev checkpoints bucket in moto."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.verify.s3_checkpoints import S3Checkpoints
from accelplane.verify.checkpoint import checkpoint_drill, parse_duration
from accelplane.verify.results import CheckId, Status
from tests.verify.conftest import CHECKPOINT_FILES
from tests.verify.moto_platform import MotoPlatform


def drill(platform: MotoPlatform, clients: AwsClients | None = None, **options: Any) -> dict[str, Any]:
    s3 = (clients or AwsClients("us-east-1", session=platform.session))("s3")
    options.setdefault("max_age", None)
    store = S3Checkpoints(s3, platform.bucket("checkpoints"), mode=options.pop("mode", "download"),
                          concurrency=options.pop("concurrency", 8))
    return {r.check: r for r in checkpoint_drill(store, "trainer/", **options)}


def test_newest_checkpoint_reads_back_intact(live_dev: MotoPlatform) -> None:
    results = drill(live_dev, max_age=timedelta(hours=1))

    assert {k: r.status for k, r in results.items()} == {
        CheckId.checkpoint_present: Status.passed,
        CheckId.checkpoint_age: Status.passed,
        CheckId.checkpoint_integrity: Status.passed,
    }
    assert results[CheckId.checkpoint_present].message.endswith("trainer/step-00001200/")
    total = sum(len(body) for body in CHECKPOINT_FILES.values())
    assert f"2 files, {total} bytes match" in results[CheckId.checkpoint_integrity].message


def test_changed_file_fails_integrity_on_its_sha256(live_dev: MotoPlatform) -> None:
    body = CHECKPOINT_FILES["model.safetensors"]
    live_dev.client("s3").put_object(
        Bucket=live_dev.bucket("checkpoints"), Key="trainer/step-00001200/model.safetensors", Body=body[::-1]
    )

    integrity = drill(live_dev)[CheckId.checkpoint_integrity]

    assert integrity.status is Status.failed
    assert integrity.actual == [integrity.actual[0]] and integrity.actual[0].startswith("model.safetensors: sha256")


def test_missing_and_truncated_files_fail_integrity(live_dev: MotoPlatform) -> None:
    s3, bucket = live_dev.client("s3"), live_dev.bucket("checkpoints")
    s3.delete_object(Bucket=bucket, Key="trainer/step-00001200/optimizer.pt")
    s3.put_object(Bucket=bucket, Key="trainer/step-00001200/model.safetensors", Body=b"truncated")

    integrity = drill(live_dev)[CheckId.checkpoint_integrity]

    assert sorted(p.split(":")[0] + ":" + p.split(":")[1].split(",")[0] for p in integrity.actual) == [
        "model.safetensors: size 9",
        "optimizer.pt: missing",
    ]


def test_the_newest_checkpoint_is_the_one_drilled(live_dev: MotoPlatform) -> None:
    directory = live_dev.write_checkpoint("trainer/", 1300, {"model.safetensors": b"newer"})
    live_dev.client("s3").put_object(
        Bucket=live_dev.bucket("checkpoints"), Key=directory + "model.safetensors", Body=b"NEWER"
    )

    results = drill(live_dev)

    assert results[CheckId.checkpoint_present].message.endswith("trainer/step-00001300/")
    assert results[CheckId.checkpoint_integrity].status is Status.failed


def test_checkpoint_older_than_the_interval_fails(live_dev: MotoPlatform) -> None:
    later = datetime.now(UTC) + timedelta(hours=7)

    age = drill(live_dev, max_age=parse_duration("6h"), now=later)[CheckId.checkpoint_age]

    assert age.status is Status.failed and "more than 6.0 h" in age.message
    assert age.expected == 6 * 3600 and age.actual >= 7 * 3600 - 60


def test_no_manifest_means_no_checkpoint(live_dev: MotoPlatform) -> None:
    live_dev.client("s3").delete_object(
        Bucket=live_dev.bucket("checkpoints"), Key="trainer/step-00001200/manifest.json"
    )

    results = drill(live_dev)

    assert list(results) == [CheckId.checkpoint_present]
    assert results[CheckId.checkpoint_present].status is Status.failed
    assert "no checkpoint under s3://" in results[CheckId.checkpoint_present].message


def test_checksum_mode_trusts_stored_sha256_without_downloading(live_dev: MotoPlatform) -> None:
    live_dev.write_checkpoint("trainer/", 1400, CHECKPOINT_FILES, checksums=True)
    clients = AwsClients("us-east-1", session=live_dev.session)

    results = drill(live_dev, clients, mode="checksum")

    assert results[CheckId.checkpoint_integrity].status is Status.passed
    calls = clients.calls.to_json()["by_operation"]
    assert calls["s3.GetObject"] == 1  # the manifest only
    assert calls["s3.HeadObject"] == len(CHECKPOINT_FILES)


def test_checksum_mode_downloads_objects_without_a_stored_checksum(live_dev: MotoPlatform) -> None:
    clients = AwsClients("us-east-1", session=live_dev.session)

    results = drill(live_dev, clients, mode="checksum")

    assert results[CheckId.checkpoint_integrity].status is Status.passed
    assert clients.calls.to_json()["by_operation"]["s3.GetObject"] == 1 + len(CHECKPOINT_FILES)


@pytest.mark.parametrize(
    ("text", "seconds"), [("90m", 5400), ("6h", 21600), ("1h30m", 5400), ("2d", 172800), ("45", 45), ("1w", 604800)]
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "6x", "h", "1h 30", "-5m", "9" * 40 + "d", "9" * 20])
def test_bad_durations_are_rejected(text: str) -> None:
    # An overlong one (found by tests/fuzz) raised OverflowError, which argparse lets through: a traceback.
    with pytest.raises(ValueError, match="expected a duration"):
        parse_duration(text)
