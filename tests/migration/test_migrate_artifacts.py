"""`accelplane migrate artifacts`: the target end's restore drill for the model's files, against real
components — moto's S3 server holding prod's model_artifacts bucket (some objects uploaded with a
full-object CRC32C, some without, so both the stored checksum and the re-hashed bytes are compared) and
gcp-storage-emulator holding tpu-prod's, where Storage Transfer Service would have copied them (no
Storage Transfer runs here: the copy is written by the test, as the service would leave it).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import google_crc32c
import pytest

from accelplane.config.project import find_project
from tests.migration.test_migration_declaration import write_stacks
from tests.support.cli_process import run_accelplane
from tests.support.google_api_fake import GoogleApiFake
from tests.support.google_api_fake.key_file import key_file
from tests.support.moto_server import moto_server
from tests.verify_gcp.conftest import gcs, gcs_server  # noqa: F401  (the Cloud Storage emulator, as fixtures)

SOURCE_BUCKET, TARGET_BUCKET = "acme-ml-model-artifacts-bc3695bb", "acme-tpu-model-artifacts-bucket-08d1d4f"
# What prod serves from released/ (a small model's files), and whether the upload kept a CRC32C.
FILES = {
    "llm/config.json": (b'{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096}\n', True),
    "llm/model-00001-of-00002.safetensors": (bytes(range(256)) * 64, False),
    "llm/model-00002-of-00002.safetensors": (bytes(reversed(range(256))) * 48, True),
    "llm/tokenizer.json": (b'{"version": "1.0", "model": {"type": "BPE"}}\n', False),
}


@pytest.fixture(scope="module")
def moto_url() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture
def source(moto_url: str) -> object:
    s3 = boto3.client("s3", endpoint_url=moto_url, region_name="us-west-2", aws_access_key_id="testing",
                      aws_secret_access_key="testing")
    s3.create_bucket(Bucket=SOURCE_BUCKET, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    try:
        for key, (data, checksum) in FILES.items():
            # The checksum as an uploader sends it (botocore computes CRC32C only with awscrt installed).
            kept = {"ChecksumAlgorithm": "CRC32C",
                    "ChecksumCRC32C": base64.b64encode(google_crc32c.value(data).to_bytes(4, "big")).decode()}
            s3.put_object(Bucket=SOURCE_BUCKET, Key=f"released/{key}", Body=data, **(kept if checksum else {}))
        s3.put_object(Bucket=SOURCE_BUCKET, Key="drafts/llm/config.json", Body=b"{}")  # outside the prefix
        yield s3
    finally:
        for item in s3.list_objects_v2(Bucket=SOURCE_BUCKET).get("Contents", []):
            s3.delete_object(Bucket=SOURCE_BUCKET, Key=item["Key"])
        s3.delete_bucket(Bucket=SOURCE_BUCKET)


@pytest.fixture
def google(tmp_path: Path) -> Iterator[Path]:
    """A key file whose token comes from the Google API fake's OAuth endpoint (the emulator checks none)."""
    with GoogleApiFake() as fake:
        yield key_file(tmp_path, fake.url, "acme-ml-tpu-prod", "migrate")


def _target(gcs, files: dict[str, bytes]) -> None:  # noqa: F811 (the fixture's value)
    gcs.client().buckets().insert(project="acme-ml-tpu-prod", body={"name": TARGET_BUCKET}).execute()
    for key, data in files.items():
        gcs.upload(TARGET_BUCKET, f"llm/{key}", data)


def _drill(tmp_path: Path, moto_url: str, gcs, key: Path, *, process: bool = False,  # noqa: F811
           edits: list[tuple[str, str]] | None = None,
           buckets: tuple[str, str] = (SOURCE_BUCKET, TARGET_BUCKET)) -> subprocess.CompletedProcess[str]:
    """The drill of the example migration (with `edits`) between `buckets` (source, target), in this process
    (tests/support/cli_process.py), or spawned where its environment is the point."""
    path = write_stacks(tmp_path, {"llm-move": edits or []})
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "GOOGLE_APPLICATION_CREDENTIALS": str(key)}
    argv = ["migrate", "artifacts", "--stack-file", str(path), "--source-bucket", buckets[0], "--target-bucket",
            buckets[1], "--endpoint-url", moto_url, f"--api-endpoint=storage={gcs.url}", "--format", "json",
            "--now", "2026-12-07T10:00:00Z"]
    if not process:
        return run_accelplane(argv, cwd=find_project().root, env=env)
    return subprocess.run([sys.executable, "-m", "accelplane", *argv], capture_output=True, text=True, timeout=120,
                          cwd=find_project().root, env=env)


def test_a_faithful_copy_is_proven_and_the_report_written_where_advance_reads_it(
        tmp_path, moto_url, source, gcs, google) -> None:  # noqa: F811
    _target(gcs, {key: data for key, (data, _) in FILES.items()})
    result = _drill(tmp_path, moto_url, gcs, google)
    assert result.returncode == 0, result.stdout + result.stderr
    found = json.loads(result.stdout)
    assert (found["objects"], found["missing"], found["resized"], found["verdict"]) == (4, [], [], "pass")
    # Every object compared (4 < the sample of 16): S3's stored CRC32C where the upload kept one, else the
    # bytes; Cloud Storage's stored CRC32C always.
    assert {item["key"]: (item["source"], item["target"], item["same"]) for item in found["compared"]} == {
        key: ("stored crc32c" if checksum else "bytes re-hashed", "stored crc32c", True)
        for key, (_, checksum) in FILES.items()}
    written = json.loads((tmp_path / "parity" / "reports" / "artifacts" / "llm-move.json").read_text())
    assert written["verdict"] == "pass" and written["copy_on"] == "2026-12-07"
    assert (written["source"], written["target"]) == (f"s3://{SOURCE_BUCKET}/released/", f"gs://{TARGET_BUCKET}/llm/")


def test_a_missing_object_and_one_of_the_same_size_with_other_bytes_fail(
        tmp_path, moto_url, source, gcs, google) -> None:  # noqa: F811
    copied = {key: data for key, (data, _) in FILES.items() if key != "llm/tokenizer.json"}
    shard = "llm/model-00001-of-00002.safetensors"
    copied[shard] = copied[shard][:100] + b"\x00" + copied[shard][101:]  # one byte flipped, same size
    _target(gcs, copied)
    result = _drill(tmp_path, moto_url, gcs, google)
    assert result.returncode == 1, result.stdout + result.stderr
    found = json.loads(result.stdout)
    assert found["missing"] == ["llm/tokenizer.json"] and found["verdict"] == "fail"
    assert [item["key"] for item in found["compared"] if not item["same"]] == [shard]


def test_without_google_credentials_the_drill_is_bad_input_saying_what_to_do(
        tmp_path, moto_url, source, gcs) -> None:  # noqa: F811
    result = _drill(tmp_path, moto_url, gcs, tmp_path / "missing.json", process=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"GOOGLE_APPLICATION_CREDENTIALS names {tmp_path / 'missing.json'}, which does not exist" in result.stderr
    assert not (tmp_path / "parity" / "reports").exists()


def test_the_drill_proves_a_copy_from_cloud_storage_into_s3(tmp_path, moto_url, gcs, google) -> None:  # noqa: F811
    # The reverse move (tpu-prod to prod), where AWS DataSync would have copied tpu-prod's llm/ into prod's
    # released/: the source read from the emulator, the target from moto; the same comparison either way.
    s3 = boto3.client("s3", endpoint_url=moto_url, region_name="us-west-2", aws_access_key_id="testing",
                      aws_secret_access_key="testing")
    gcs.client().buckets().insert(project="acme-ml-tpu-prod", body={"name": TARGET_BUCKET}).execute()
    s3.create_bucket(Bucket=SOURCE_BUCKET, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    try:
        for key, (data, _) in FILES.items():
            gcs.upload(TARGET_BUCKET, f"llm/{key}", data)
            s3.put_object(Bucket=SOURCE_BUCKET, Key=f"released/{key}", Body=data)  # DataSync sends no CRC32C here
        result = _drill(tmp_path, moto_url, gcs, google, buckets=(TARGET_BUCKET, SOURCE_BUCKET), edits=[
            ("source: {stack: prod, service: serve}", "source: {stack: tpu-prod, service: llm-server}"),
            ("target: {stack: tpu-prod, service: llm-server}", "target: {stack: prod, service: serve}"),
            ("source_prefix: released/, target_prefix: llm/", "source_prefix: llm/, target_prefix: released/")])
        assert result.returncode == 0, result.stdout + result.stderr
        found = json.loads(result.stdout)
        assert (found["objects"], found["verdict"]) == (4, "pass")
        # Cloud Storage's stored CRC32C on the source side; S3's bytes re-hashed (no checksum was uploaded).
        assert {(item["source"], item["target"], item["same"]) for item in found["compared"]} == {
            ("stored crc32c", "bytes re-hashed", True)}
        written = json.loads((tmp_path / "parity" / "reports" / "artifacts" / "llm-move.json").read_text())
        assert (written["source"], written["target"]) == (f"gs://{TARGET_BUCKET}/llm/",
                                                          f"s3://{SOURCE_BUCKET}/released/")
    finally:
        for item in s3.list_objects_v2(Bucket=SOURCE_BUCKET).get("Contents", []):
            s3.delete_object(Bucket=SOURCE_BUCKET, Key=item["Key"])
        s3.delete_bucket(Bucket=SOURCE_BUCKET)
