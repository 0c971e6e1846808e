"""`s3://bucket/key` objects for parity's golden sets and reports (GetObject, PutObject), and the listing
and checksums a migration's restore drill compares (ListObjectsV2, HeadObject).

S3 keeps a full-object CRC32C only for an object uploaded with that checksum (`ChecksumAlgorithm`); a
multipart upload may keep a composite one (a checksum of the parts' checksums, `-N` after it), and an
ETag is an MD5 of the bytes only for a single-part upload without KMS: neither is the object's CRC32C, so
both read as none and the drill hashes the bytes (S3 User Guide, "Checking object integrity").
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from botocore.exceptions import BotoCoreError, ClientError

from accelplane.cloud_support import Connection
from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.connection import aws_connection
from accelplane.clouds.aws.declaration import AwsPlatform, aws_platform
from accelplane.declaration import Platform
from accelplane.rollout.parity.storage import CloudObjectStore, ObjectEntry, ObjectStore, StoreError


class S3Objects(ObjectStore):
    def __init__(self, clients: AwsClients) -> None:
        self.clients = clients

    @staticmethod
    def _split(uri: str) -> tuple[str, str]:
        bucket, _, key = uri.removeprefix("s3://").partition("/")
        if not bucket or not key:
            raise StoreError(f"{uri}: expected s3://bucket/key")
        return bucket, key

    def _stream(self, uri: str, take: Callable[[bytes], object]) -> bool:
        """Hand the object's bytes to `take` as they arrive, 8 MiB at a time (a model shard may be many GiB:
        never held whole unless the caller keeps it); False when there is no such object."""
        bucket, key = self._split(uri)
        try:
            body = self.clients("s3").get_object(Bucket=bucket, Key=key)["Body"]
            try:
                for chunk in body.iter_chunks(8 * 1024 * 1024):
                    take(chunk)
            finally:
                body.close()
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return False
            raise StoreError(f"cannot read {uri}: {error.response.get('Error', {}).get('Code')}") from None
        except BotoCoreError as error:
            raise StoreError(f"cannot read {uri}: {error}") from None
        return True

    def read(self, uri: str) -> bytes | None:
        parts: list[bytes] = []
        return b"".join(parts) if self._stream(uri, parts.append) else None

    def entries(self, uri: str) -> list[ObjectEntry]:
        bucket, _, prefix = uri.removeprefix("s3://").partition("/")
        found: list[ObjectEntry] = []
        try:
            pages = self.clients("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
            for page in pages:
                found += [ObjectEntry(item["Key"][len(prefix):], int(item["Size"])) for item in page.get("Contents", [])
                          if not item["Key"].endswith("/")]
        except ClientError as error:
            raise StoreError(f"cannot list {uri}: {error.response.get('Error', {}).get('Code')}") from None
        except BotoCoreError as error:
            raise StoreError(f"cannot list {uri}: {error}") from None
        return sorted(found, key=lambda entry: entry.key)

    def crc32c(self, uri: str) -> int | None:
        bucket, key = self._split(uri)
        try:
            head = self.clients("s3").head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
        except (BotoCoreError, ClientError) as error:
            raise StoreError(f"cannot read {uri}: {error}") from None
        value = head.get("ChecksumCRC32C")
        if not value or "-" in value or head.get("ChecksumType") == "COMPOSITE":
            return None
        return int.from_bytes(base64.b64decode(value), "big")

    def hashed_crc32c(self, uri: str) -> int | None:
        import google_crc32c  # start-up time: only a restore drill hashes objects

        checksum = google_crc32c.Checksum()
        return int.from_bytes(checksum.digest(), "big") if self._stream(uri, checksum.update) else None

    def write(self, uri: str, data: bytes) -> None:
        bucket, key = self._split(uri)
        try:
            # verify's clients refuse writes: the one write goes through a client made for it.
            writer = self.clients.session.client("s3", endpoint_url=self.clients.endpoint_url,
                                                 config=self.clients.config)
            writer.put_object(Bucket=bucket, Key=key, Body=data, ContentType="application/json")
        except (BotoCoreError, ClientError) as error:
            raise StoreError(f"cannot write {uri}: {error}") from None


def s3_objects(platform: AwsPlatform, connection: Connection) -> S3Objects:
    return S3Objects(AwsClients(platform.region, endpoint_url=aws_connection(connection).endpoint_url,
                                profile=aws_connection(connection).profile, max_attempts=4))


def _open(platform: Platform, connection: Connection) -> S3Objects:
    return s3_objects(aws_platform(platform), connection)


OBJECT_STORE = CloudObjectStore("aws", ("s3",), _open)  # this cloud's `accelplane.object_stores` entry point
