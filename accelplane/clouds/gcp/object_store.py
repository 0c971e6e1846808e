"""`gs://bucket/key` objects for parity's golden sets and reports, through the Cloud Storage JSON API.

Its own clients with the `devstorage.read_write` scope that may call `objects.get` and
`objects.insert` only; `--api-endpoint storage=URL` and impersonation as everywhere else.
"""

from __future__ import annotations

from googleapiclient.http import MediaInMemoryUpload

from accelplane.cloud_support import Connection
from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.declaration import GcpPlatform, gcp_platform
from accelplane.declaration import Platform
from accelplane.rollout.parity.storage import CloudObjectStore, ObjectStore, StoreError

WRITE_SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"


class GcsObjects(ObjectStore):
    def __init__(self, clients: GcpClients) -> None:
        self.clients = clients

    @staticmethod
    def _split(uri: str) -> tuple[str, str]:
        bucket, _, key = uri.removeprefix("gs://").partition("/")
        if not bucket or not key:
            raise StoreError(f"{uri}: expected gs://bucket/key")
        return bucket, key

    def read(self, uri: str) -> bytes | None:
        bucket, key = self._split(uri)
        try:
            return self.clients.media(self.clients.service("storage").objects().get_media(bucket=bucket, object=key))
        except GcpReadError as error:
            if error.code in ("HTTP 404", "notFound", "NOT_FOUND"):
                return None
            raise StoreError(f"cannot read {uri}: {error.code}: {error.message}") from None

    def write(self, uri: str, data: bytes) -> None:
        bucket, key = self._split(uri)
        # Golden sets are JSONL and reports JSON; stored as bytes, as the trainers' checkpoints are.
        upload = MediaInMemoryUpload(data, mimetype="application/octet-stream", resumable=False)
        try:
            self.clients.execute(self.clients.service("storage").objects().insert(
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
