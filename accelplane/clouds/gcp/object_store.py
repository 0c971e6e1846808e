"""`gs://bucket/key` objects for parity's golden sets and reports, through the Cloud Storage JSON API.

Its own clients with the `devstorage.read_write` scope that may call `objects.get`, `objects.list` (a
migration's restore drill) and `objects.insert` only; `--api-endpoint storage=URL` and impersonation as
everywhere else.
"""

from __future__ import annotations

import base64
from typing import Any

import google.auth.exceptions
from googleapiclient.http import MediaInMemoryUpload

from accelplane.cloud_support import Connection
from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.credentials import credentials_problem
from accelplane.clouds.gcp.declaration import GcpPlatform, gcp_platform
from accelplane.declaration import Platform
from accelplane.rollout.parity.storage import CloudObjectStore, ObjectEntry, ObjectStore, StoreError

WRITE_SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"


class GcsObjects(ObjectStore):
    def __init__(self, clients: GcpClients) -> None:
        self.clients = clients

    def _storage(self, uri: str) -> Any:
        """The storage service; credentials that cannot be had are a `StoreError` saying what to do."""
        try:
            return self.clients.service("storage")
        except google.auth.exceptions.DefaultCredentialsError as error:
            raise StoreError(f"cannot reach {uri}: {credentials_problem(error)}") from None

    @staticmethod
    def _split(uri: str) -> tuple[str, str]:
        bucket, _, key = uri.removeprefix("gs://").partition("/")
        if not bucket or not key:
            raise StoreError(f"{uri}: expected gs://bucket/key")
        return bucket, key

    def read(self, uri: str) -> bytes | None:
        bucket, key = self._split(uri)
        try:
            return self.clients.media(self._storage(uri).objects().get_media(bucket=bucket, object=key))
        except GcpReadError as error:
            if error.code in ("HTTP 404", "notFound", "NOT_FOUND"):
                return None
            raise StoreError(f"cannot read {uri}: {error.code}: {error.message}") from None

    def entries(self, uri: str) -> list[ObjectEntry]:
        bucket, _, prefix = uri.removeprefix("gs://").partition("/")
        try:
            items = self.clients.pages(self._storage(uri).objects(), "items", bucket=bucket,
                                       prefix=prefix)
        except GcpReadError as error:
            raise StoreError(f"cannot list {uri}: {error.code}: {error.message}") from None
        return sorted((ObjectEntry(str(item["name"])[len(prefix):], int(item.get("size", 0))) for item in items
                       if not str(item["name"]).endswith("/")), key=lambda entry: entry.key)

    def crc32c(self, uri: str) -> int | None:
        # Cloud Storage keeps every object's CRC32C (base64, big-endian), composite objects included.
        bucket, key = self._split(uri)
        try:
            found = self.clients.read(self._storage(uri).objects().get(bucket=bucket, object=key))
        except GcpReadError as error:
            raise StoreError(f"cannot read {uri}: {error.code}: {error.message}") from None
        value = found.get("crc32c")
        return int.from_bytes(base64.b64decode(value), "big") if value else None

    def write(self, uri: str, data: bytes) -> None:
        bucket, key = self._split(uri)
        # Golden sets are JSONL and reports JSON; stored as bytes, as the trainers' checkpoints are.
        upload = MediaInMemoryUpload(data, mimetype="application/octet-stream", resumable=False)
        try:
            self.clients.execute(self._storage(uri).objects().insert(
                bucket=bucket, name=key, media_body=upload))
        except GcpReadError as error:
            raise StoreError(f"cannot write {uri}: {error.code}: {error.message}") from None


def gcs_objects(platform: GcpPlatform, connection: Connection) -> GcsObjects:
    assert platform.gcp is not None
    settings = gcp_connection(connection)
    clients = GcpClients(platform.gcp.project, platform.region, endpoints=settings.api_endpoints,
                         impersonate=settings.impersonate_service_account, scope=WRITE_SCOPE,
                         write_methods=frozenset({"storage.objects.insert"}), max_attempts=4)
    return GcsObjects(clients)


def _open(platform: Platform, connection: Connection) -> GcsObjects:
    return gcs_objects(gcp_platform(platform), connection)


OBJECT_STORE = CloudObjectStore("gcp", ("gs",), _open)  # this cloud's `accelplane.object_stores` entry point
