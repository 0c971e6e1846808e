"""The checkpoints bucket on Cloud Storage, as the drills read it (and, for `restore`, write it).

Reads go through verify's read-only clients: `objects.list`, `objects.get` (metadata) and media
downloads in 8 MiB ranges, each range one retried call, so a cut connection costs one range and a
multi-gigabyte shard is never held in memory. Cloud Storage keeps CRC32C and MD5, not SHA-256, so
`checksum` mode trusts a SHA-256 only where the trainer stored one in the object's metadata
(`x-goog-meta-sha256`, `metadata.sha256`); other files are downloaded.

The restore drill's writes (`objects.insert`, `objects.rewrite`, `objects.delete`) go through
separate clients with the `devstorage.read_write` scope that may call those three methods only,
and only under the drill's scratch prefix (`restore_drill.ScratchGuard`). Its preflight reads the
bucket (retention policy, default event-based hold, CMEK key), the key (`cryptoKeys.get`: the
primary version enabled; `getIamPolicy`: Cloud Storage's service agent may use it) and
`testIamPermissions` for the object permissions a restore needs.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any

from googleapiclient.http import MediaInMemoryUpload

from accelplane.clouds.gcp.clients import GcpClients, GcpReadError
from accelplane.verify.checkpoint import CheckpointStore, StoredObject
from accelplane.verify.restore_drill import RestoreStore

CHUNK = 8 * 1024 * 1024
WRITE_SCOPE = "https://www.googleapis.com/auth/devstorage.read_write"
WRITE_METHODS = frozenset({"storage.objects.insert", "storage.objects.rewrite", "storage.objects.delete"})
# What a resumed run and the drill do in the bucket: list, read, write, and replace or delete.
RESTORE_PERMISSIONS = ("storage.objects.list", "storage.objects.get", "storage.objects.create",
                       "storage.objects.delete")
KEY_USER_ROLES = ("roles/cloudkms.cryptoKeyEncrypterDecrypter", "roles/owner", "roles/cloudkms.admin")
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _time(text: Any) -> datetime:
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return datetime.fromtimestamp(0, UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _days(seconds: int) -> str:
    return f"{seconds / 86400:g} days" if seconds >= 86400 else f"{seconds} s"


class GcsCheckpoints(CheckpointStore, RestoreStore):
    read_errors: tuple[type[BaseException], ...] = (GcpReadError,)
    checksum_method = "SHA-256 from the objects' metadata (downloaded where none)"

    def __init__(self, clients: GcpClients, bucket: str, *, mode: str = "download", concurrency: int = 8) -> None:
        self.clients = clients
        self.bucket = bucket
        self.mode = mode
        self.concurrency = concurrency
        self._sizes: dict[str, int] = {}
        self._writer: GcpClients | None = None

    def url(self, key: str) -> str:
        return f"gs://{self.bucket}/{key}"

    def describe(self, error: BaseException) -> tuple[str, str]:
        if isinstance(error, GcpReadError):
            return error.code, error.message
        return type(error).__name__, str(error)

    def _objects(self) -> Any:
        return self.clients.service("storage").objects()

    # -- reads -----------------------------------------------------------------------------

    def listing(self, prefix: str) -> list[StoredObject]:
        items = self.clients.pages(self._objects(), "items", bucket=self.bucket, prefix=prefix)
        objects = []
        for item in items:
            size = int(item["size"]) if str(item.get("size", "")).isdigit() else None
            if size is not None:
                self._sizes[str(item["name"])] = size
            objects.append(StoredObject(str(item["name"]), size, _time(item.get("updated"))))
        return objects

    def read_json(self, key: str) -> Any:
        return json.loads(self.clients.media(self._objects().get_media(bucket=self.bucket, object=key)))

    def sha256(self, key: str) -> str:
        if self.mode == "checksum":
            item = self.clients.read(self._objects().get(bucket=self.bucket, object=key))
            stored = str((item.get("metadata") or {}).get("sha256", "")).lower()
            if _HEX64.fullmatch(stored):
                return stored
        return self._sha256_by_download(key)

    def _sha256_by_download(self, key: str) -> str:
        size = self._sizes.get(key)
        if size is None:
            item = self.clients.read(self._objects().get(bucket=self.bucket, object=key))
            size = int(item.get("size") or 0)
        digest = hashlib.sha256()
        for start in range(0, max(size, 1), CHUNK):
            request = self._objects().get_media(bucket=self.bucket, object=key)
            if size:
                request.headers["Range"] = f"bytes={start}-{min(start + CHUNK, size) - 1}"
            digest.update(self.clients.media(request))
        return digest.hexdigest()

    # -- the restore drill -----------------------------------------------------------------

    def restore_blockers(self, prefix: str) -> list[str]:
        bucket = self.clients.read(self.clients.service("storage").buckets().get(bucket=self.bucket))
        blockers = []
        retention = bucket.get("retentionPolicy") or {}
        period = int(retention.get("retentionPeriod") or 0)
        if period:
            locked = "locked" if retention.get("isLocked") else "not locked"
            blockers.append(
                f"the bucket's retention policy ({_days(period)}, {locked}) keeps every object from being "
                f"deleted or replaced until it is {_days(period)} old: a resumed run cannot rotate or overwrite "
                "its checkpoints, and the drill could not clean up"
            )
        if bucket.get("defaultEventBasedHold"):
            blockers.append("the bucket holds every new object (default event-based hold): nothing written "
                            "can be replaced or deleted until the hold is released")
        key = (bucket.get("encryption") or {}).get("defaultKmsKeyName")
        if key:
            blockers += self._key_blockers(str(key))
        granted = self.clients.read(
            self.clients.service("storage").buckets().testIamPermissions(
                bucket=self.bucket, permissions=list(RESTORE_PERMISSIONS)
            )
        ).get("permissions") or []
        lacking = [p for p in RESTORE_PERMISSIONS if p not in granted]
        if lacking:
            blockers.append(f"these credentials lack {', '.join(lacking)} on gs://{self.bucket}")
        return blockers

    def _key_blockers(self, key: str) -> list[str]:
        keys = self.clients.service("cloudkms").projects().locations().keyRings().cryptoKeys()
        found = self.clients.read(keys.get(name=key))
        blockers = []
        state = (found.get("primary") or {}).get("state")
        if state != "ENABLED":
            blockers.append(
                f"the bucket's CMEK key {key} has no enabled primary version ({state or 'none'}): "
                "objects can be neither written nor read"
            )
        policy = self.clients.read(keys.getIamPolicy(resource=key))
        agent = f"serviceAccount:service-{self.clients.project_number}@gs-project-accounts.iam.gserviceaccount.com"
        bindings = policy.get("bindings") or []
        holders = {m for b in bindings if b.get("role") in KEY_USER_ROLES for m in b.get("members") or []}
        if self.clients.project_number and agent not in holders:
            blockers.append(
                f"Cloud Storage's service agent ({agent.removeprefix('serviceAccount:')}) may not use the bucket's "
                f"CMEK key {key} (roles/cloudkms.cryptoKeyEncrypterDecrypter): objects cannot be encrypted or read"
            )
        return blockers

    def _write(self) -> GcpClients:
        if self._writer is None:
            self._writer = self.clients.writer(WRITE_SCOPE, WRITE_METHODS)
        return self._writer

    def put(self, key: str, data: bytes) -> None:
        writer = self._write()
        upload = MediaInMemoryUpload(data, mimetype="application/octet-stream", resumable=False)
        self._sizes[key] = len(data)
        writer.execute(writer.service("storage").objects().insert(bucket=self.bucket, name=key, media_body=upload))

    def copy(self, source: str, target: str) -> None:
        writer = self._write()
        objects = writer.service("storage").objects()
        params = {"sourceBucket": self.bucket, "sourceObject": source, "destinationBucket": self.bucket,
                  "destinationObject": target, "body": {}}
        answer = writer.execute(objects.rewrite(**params))
        while isinstance(answer, dict) and not answer.get("done", True) and answer.get("rewriteToken"):
            answer = writer.execute(objects.rewrite(**params, rewriteToken=answer["rewriteToken"]))
        self._sizes[target] = self._sizes.get(source, 0)

    def delete(self, key: str) -> None:
        writer = self._write()
        try:
            writer.execute(writer.service("storage").objects().delete(bucket=self.bucket, object=key))
        except GcpReadError as error:
            if error.code not in ("notFound", "NOT_FOUND", "HTTP 404"):  # never written: nothing to clean up
                raise
