"""Restore round-trip (`--checkpoint-drill restore`): can a training run that resumes here write,
read back and restore a checkpoint in the checkpoints bucket, today, with these credentials?

The read drill (`checkpoint`) proves the newest checkpoint reads back intact; it cannot prove a
resumed run can go on: write its next checkpoint, replace or rotate old ones, and restore one into
a fresh location. This drill does that with a small checkpoint of its own, under a scratch prefix
inside the workload's prefix (so the workload's prefix-limited grants apply to it):

1. preflight, before anything is written: what the bucket says would stop a restore (a retention
   policy or default event-based hold keeps objects from being deleted or replaced; a CMEK key
   that is not enabled, or that the storage service cannot use; permissions the credentials lack).
   Any of these fails the drill with the reason named and writes nothing;
2. write `DRILL_FILES` files of random bytes and their `manifest.json`, read each back and compare
   SHA-256;
3. restore: copy the set server-side into `<scratch>restored/` and verify the copies by SHA-256;
4. clean up every object written. What could not be deleted is named in the result.

Every key written is checked to lie under the scratch prefix before the call (`ScratchGuard`).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from abc import ABC, abstractmethod
from datetime import datetime

from accelplane.verify.results import CheckId, CheckResult, Status, Subject

SCRATCH_MARK = ".accelplane-restore-drill-"
DRILL_FILES = 3
DRILL_FILE_BYTES = 256 * 1024


class RestoreStore(ABC):
    """The writes a cloud's checkpoint store offers the restore drill."""

    read_errors: tuple[type[BaseException], ...] = ()

    @abstractmethod
    def url(self, key: str) -> str: ...

    @abstractmethod
    def describe(self, error: BaseException) -> tuple[str, str]: ...

    @abstractmethod
    def restore_blockers(self, prefix: str) -> list[str]:
        """What would stop a restore under `prefix`, found by reading only; empty when nothing would."""

    @abstractmethod
    def put(self, key: str, data: bytes) -> None: ...

    @abstractmethod
    def copy(self, source: str, target: str) -> None: ...

    @abstractmethod
    def sha256(self, key: str) -> str: ...

    @abstractmethod
    def delete(self, key: str) -> None: ...


class ScratchGuard:
    """Refuses any write outside the drill's scratch prefix: the drill never touches real checkpoints."""

    def __init__(self, scratch: str) -> None:
        self.scratch = scratch

    def check(self, key: str) -> str:
        if not key.startswith(self.scratch) or ".." in key.split("/"):
            raise ValueError(f"the restore drill writes only under {self.scratch} (refused {key})")
        return key


def is_drill_object(key: str) -> bool:
    """An object the restore drill wrote (left behind if its clean-up failed): never a checkpoint."""
    return SCRATCH_MARK in key


def scratch_prefix(prefix: str, now: datetime) -> str:
    return f"{prefix}{SCRATCH_MARK}{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}/"


def restore_drill(
    store: RestoreStore, prefix: str, *, now: datetime, subject: Subject | None = None, workload: str = ""
) -> CheckResult:
    where: Subject = subject or {}
    label = f"{workload}: " if workload else ""
    try:
        blockers = store.restore_blockers(prefix)
    except store.read_errors as error:
        code, message = store.describe(error)
        return CheckResult(CheckId.checkpoint_restore, Status.failed,
                           f"{label}cannot read what the restore needs: {code}: {message}", **where)
    if blockers:
        return CheckResult(CheckId.checkpoint_restore, Status.failed,
                           f"{label}a restore into {store.url(prefix)} would fail: " + "; ".join(blockers)
                           + " (nothing was written)", actual=blockers, **where)
    guard = ScratchGuard(scratch_prefix(prefix, now))
    written: list[str] = []
    try:
        failure = _round_trip(store, guard, written)
    except store.read_errors as error:
        code, message = store.describe(error)
        failure = f"{code}: {message}"
    left = _clean_up(store, guard, written)
    scratch = store.url(guard.scratch)
    if failure:
        message = f"{label}restore round-trip in {scratch} failed: {failure}"
        if left:
            message += f"; left behind: {', '.join(left)}"
        return CheckResult(CheckId.checkpoint_restore, Status.failed, message, **where)
    if left:
        return CheckResult(CheckId.checkpoint_restore, Status.failed,
                           f"{label}restored in {scratch}, but could not clean up: {', '.join(left)}", **where)
    total = DRILL_FILES * DRILL_FILE_BYTES
    return CheckResult(
        CheckId.checkpoint_restore,
        Status.passed,
        f"{label}wrote {DRILL_FILES} files ({total // 1024} KiB) and a manifest to {scratch}, read them back, "
        "restored them to restored/ and verified every file by SHA-256, then deleted all",
        **where,
    )


def _round_trip(store: RestoreStore, guard: ScratchGuard, written: list[str]) -> str | None:
    files = []
    for index in range(DRILL_FILES):
        data = os.urandom(DRILL_FILE_BYTES)
        path = f"shard-{index:05d}-of-{DRILL_FILES:05d}.bin"
        key = guard.check(guard.scratch + path)
        written.append(key)
        store.put(key, data)
        files.append({"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    manifest = guard.check(guard.scratch + "manifest.json")
    written.append(manifest)
    store.put(manifest, json.dumps({"files": files}).encode())
    for entry in files:
        actual = store.sha256(guard.scratch + entry["path"])
        if actual != entry["sha256"]:
            return f"{entry['path']} read back with sha256 {actual[:12]}…, written {entry['sha256'][:12]}…"
    for entry in files:
        target = guard.check(f"{guard.scratch}restored/{entry['path']}")
        written.append(target)
        store.copy(guard.scratch + entry["path"], target)
        actual = store.sha256(target)
        if actual != entry["sha256"]:
            return f"restored {entry['path']} has sha256 {actual[:12]}…, the checkpoint {entry['sha256'][:12]}…"
    return None


def _clean_up(store: RestoreStore, guard: ScratchGuard, written: list[str]) -> list[str]:
    left = []
    for key in reversed(written):
        try:
            store.delete(guard.check(key))
        except store.read_errors as error:
            code, _ = store.describe(error)
            left.append(f"{store.url(key)} ({code})")
    return left
