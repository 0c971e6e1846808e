"""The checkpoints bucket on S3, as the restore drill (`accelplane.verify.checkpoint`) reads it.

`checksum` mode compares S3's stored full-object SHA-256 (uploads with `ChecksumAlgorithm=SHA256`)
without moving data; a file without one (multipart uploads carry a checksum of part checksums) is
downloaded. Streaming reads are retried (3 attempts, exponential backoff) when the connection drops
mid-body, which botocore does not retry on its own.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import time
from typing import Any

from botocore.exceptions import BotoCoreError

from accelplane.clouds.aws.clients import API_ERRORS, describe_error
from accelplane.verify.checkpoint import CheckpointStore, StoredObject

_CHUNK = 8 * 1024 * 1024


class S3Checkpoints(CheckpointStore):
    read_errors = API_ERRORS
    checksum_method = "S3 checksums (downloaded where none)"

    def __init__(self, s3: Any, bucket: str, *, mode: str = "download", concurrency: int = 8) -> None:
        self.s3 = s3
        self.bucket = bucket
        self.mode = mode
        self.concurrency = concurrency

    def url(self, key: str) -> str:
        return f"s3://{self.bucket}/{key}"

    def describe(self, error: BaseException) -> tuple[str, str]:
        return describe_error(error)

    def listing(self, prefix: str) -> list[StoredObject]:
        objects: list[StoredObject] = []
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            objects += [StoredObject(o["Key"], o.get("Size"), o["LastModified"]) for o in page.get("Contents", [])]
        return objects

    def read_json(self, key: str) -> Any:
        body = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"]
        try:
            return json.loads(body.read())
        finally:
            body.close()

    def _sha256_by_download(self, key: str, attempts: int = 3) -> str:
        for attempt in range(attempts):
            digest = hashlib.sha256()
            try:
                body = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"]
                try:
                    for chunk in iter(lambda b=body: b.read(_CHUNK), b""):
                        digest.update(chunk)
                finally:
                    body.close()
                return digest.hexdigest()
            except (BotoCoreError, ConnectionError):
                if attempt == attempts - 1:
                    raise
                time.sleep(0.5 * 2**attempt)
        raise AssertionError("unreachable")

    def _sha256_by_checksum(self, key: str) -> str | None:
        head = self.s3.head_object(Bucket=self.bucket, Key=key, ChecksumMode="ENABLED")
        value = head.get("ChecksumSHA256")
        if not value or "-" in value or head.get("ChecksumType", "FULL_OBJECT") != "FULL_OBJECT":
            return None
        try:
            return base64.b64decode(value).hex()
        except (binascii.Error, ValueError):
            return None

    def sha256(self, key: str) -> str:
        if self.mode == "checksum":
            stored = self._sha256_by_checksum(key)
            if stored is not None:
                return stored
        return self._sha256_by_download(key)
