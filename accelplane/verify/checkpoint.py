"""Checkpoint restore drill: the newest checkpoint can be found, is recent, and reads back intact.

Where: each training workload that may write to the `checkpoints` bucket, under its declared prefix
(e.g. `trainer/`). What a checkpoint is, for this drill: a "directory" holding an integrity
manifest, `<prefix>.../<name>/manifest.json`, written last by the trainer once every file is
uploaded:

```json
{"files": [{"path": "model-00001-of-00004.safetensors", "size": 4998243328, "sha256": "<64 hex>"}, ...]}
```

`path` is relative to the manifest's directory. The newest manifest (by modification time, then by
key, so name checkpoint directories by zero-padded step or timestamp) is the newest complete
checkpoint. Checks:

- `checkpoint.present`: a manifest exists under the prefix;
- `checkpoint.age`: it is younger than `--checkpoint-max-age` (the interval the trainer promises);
- `checkpoint.integrity`: every listed file exists with the listed size and SHA-256. With
  `--checkpoint-drill download` (default) each file is streamed and hashed: a real restore, which
  also proves that these credentials can read the objects and decrypt them with the data key. With
  `checksum`, the store's own full-object SHA-256 is compared where it keeps one (the cloud's
  `CheckpointStore` says how), without moving data; a file without one is downloaded.
- `checkpoint.restore` (`--checkpoint-drill restore`): after the download drill, a write, read-back,
  restore and clean-up round-trip under a scratch prefix (`restore_drill`), where the cloud's store
  can write.

The drill is the same on every cloud; the bucket is read through the cloud's `CheckpointStore`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from accelplane.verify.restore_drill import is_drill_object
from accelplane.verify.results import CheckId, CheckResult, Status, Subject

MANIFEST = "manifest.json"
DRILL_MODES = ("download", "checksum", "restore", "off")
_DURATION = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int | None
    modified: datetime


class CheckpointStore(ABC):
    """One bucket as the drill reads it; a cloud implements it over its object store."""

    # What a failed read raises (the store's API errors); the drill reports them, never crashes.
    read_errors: tuple[type[BaseException], ...] = ()
    # How `checksum` mode verified files, for the passing message.
    checksum_method: str = "stored checksums (downloaded where none)"
    concurrency: int = 8
    mode: str = "download"

    @abstractmethod
    def url(self, key: str) -> str:
        """The object's URL as users write it (`s3://bucket/key`)."""

    @abstractmethod
    def listing(self, prefix: str) -> list[StoredObject]: ...

    @abstractmethod
    def read_json(self, key: str) -> Any: ...

    @abstractmethod
    def sha256(self, key: str) -> str:
        """The object's SHA-256, hex: downloaded and hashed, or the store's own in `checksum` mode."""

    @abstractmethod
    def describe(self, error: BaseException) -> tuple[str, str]:
        """(code, message) of a read error, one bounded line."""


def parse_duration(text: str) -> timedelta:
    """`90m`, `6h`, `1h30m`, `2d`, or plain seconds."""
    text = text.strip().lower()
    if text.isdigit():
        seconds = int(text)
    else:
        parts = _DURATION.findall(text)
        if not parts or _DURATION.sub("", text).strip():
            raise ValueError(f"expected a duration like 90m, 6h, 1h30m or 2d (got {text!r})")
        seconds = sum(int(n) * _UNITS[unit] for n, unit in parts)
    try:
        return timedelta(seconds=seconds)
    except OverflowError:  # past timedelta's 999,999,999 days: an OverflowError argparse would not catch
        raise ValueError(f"expected a duration of at most {timedelta.max.days:,} days (got {text!r})") from None


def _human(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min"


def checkpoint_drill(
    store: CheckpointStore,
    prefix: str,
    *,
    max_age: timedelta | None,
    now: datetime | None = None,
    subject: Subject | None = None,
    workload: str = "",
) -> list[CheckResult]:
    now = now or datetime.now(UTC)
    where: Subject = subject or {}
    label = f"{workload}: " if workload else ""
    try:
        objects = store.listing(prefix)
    except store.read_errors as error:
        code, message = store.describe(error)
        return [CheckResult(CheckId.checkpoint_present, Status.failed,
                            f"{label}cannot list {store.url(prefix)}: {code}: {message}", **where)]
    objects = [o for o in objects if not is_drill_object(o.key)]  # a restore drill's scratch, never a checkpoint
    manifests = [o for o in objects if o.key.endswith("/" + MANIFEST) or o.key == prefix + MANIFEST]
    if not manifests:
        return [CheckResult(CheckId.checkpoint_present, Status.failed,
                            f"{label}no checkpoint under {store.url(prefix)} (no */{MANIFEST})", **where)]
    # Modification times have one-second resolution: on a tie, the later name (zero-padded steps).
    newest = max(manifests, key=lambda o: (o.modified, o.key))
    directory = newest.key[: -len(MANIFEST)]
    results = [
        CheckResult(CheckId.checkpoint_present, Status.passed, f"{label}newest checkpoint {store.url(directory)}",
                    actual=store.url(newest.key), **where)
    ]
    modified = newest.modified if newest.modified.tzinfo else newest.modified.replace(tzinfo=UTC)
    results.append(_age(now - modified, max_age, where, label))
    results.append(_integrity(store, directory, newest.key, {o.key: o for o in objects}, where, label))
    return results


def _age(age: timedelta, max_age: timedelta | None, where: Subject, label: str) -> CheckResult:
    if max_age is None:
        return CheckResult(CheckId.checkpoint_age, Status.skipped,
                           f"{label}newest checkpoint is {_human(age)} old (no --checkpoint-max-age given)",
                           actual=int(age.total_seconds()), **where)
    if age > max_age:
        return CheckResult(CheckId.checkpoint_age, Status.failed,
                           f"{label}newest checkpoint is {_human(age)} old, more than {_human(max_age)}",
                           expected=int(max_age.total_seconds()), actual=int(age.total_seconds()),
                           path="age_seconds", **where)
    return CheckResult(CheckId.checkpoint_age, Status.passed,
                       f"{label}newest checkpoint is {_human(age)} old (limit {_human(max_age)})", **where)


def _integrity(
    store: CheckpointStore, directory: str, key: str, listed: dict[str, StoredObject], where: Subject, label: str
) -> CheckResult:
    try:
        manifest = store.read_json(key)
    except store.read_errors as error:
        code, message = store.describe(error)
        return CheckResult(CheckId.checkpoint_integrity, Status.failed,
                           f"{label}cannot read {key}: {code}: {message}", **where)
    except ValueError:
        return CheckResult(CheckId.checkpoint_integrity, Status.failed, f"{label}{key} is not valid JSON", **where)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, list) or not files:
        return CheckResult(CheckId.checkpoint_integrity, Status.failed,
                           f'{label}{key}: expected {{"files": [{{"path", "size", "sha256"}}, ...]}}', **where)
    problems, to_hash = _listed_problems(files, directory, listed)
    problems += _hash_problems(store, to_hash)
    if problems:
        return CheckResult(
            CheckId.checkpoint_integrity,
            Status.failed,
            f"{label}{len(problems)} of {len(files)} files do not match {key}: " + "; ".join(problems[:10]),
            actual=problems,
            **where,
        )
    total = sum(int(e.get("size") or 0) for e in files if isinstance(e, dict))
    how = store.checksum_method if store.mode == "checksum" else "downloaded and hashed"
    return CheckResult(CheckId.checkpoint_integrity, Status.passed,
                       f"{label}{len(files)} files, {total} bytes match the manifest's size and sha256 ({how})",
                       **where)


def _listed_problems(
    files: list[Any], directory: str, listed: dict[str, StoredObject]
) -> tuple[list[str], list[tuple[str, str, str]]]:
    """What the listing alone shows is wrong, and the (path, key, sha256) of the files left to hash."""
    problems: list[str] = []
    to_hash: list[tuple[str, str, str]] = []
    for index, entry in enumerate(files):
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str) or not path or path.startswith("/") or ".." in path.split("/"):
            problems.append(f"files[{index}]: invalid path {path!r}")
            continue
        found = listed.get(directory + path)
        if found is None:
            problems.append(f"{path}: missing")
            continue
        if found.size != entry.get("size"):
            problems.append(f"{path}: size {found.size}, manifest says {entry.get('size')}")
            continue
        expected = str(entry.get("sha256", "")).lower()
        if not re.fullmatch(r"[0-9a-f]{64}", expected):
            problems.append(f"{path}: manifest has no valid sha256")
            continue
        to_hash.append((path, directory + path, expected))
    return problems, to_hash


def _hash_problems(store: CheckpointStore, to_hash: list[tuple[str, str, str]]) -> list[str]:
    def check(item: tuple[str, str, str]) -> str | None:
        path, object_key, expected = item
        try:
            actual = store.sha256(object_key)
        except (*store.read_errors, ConnectionError) as error:
            code, message = store.describe(error)
            return f"{path}: cannot read ({code}: {message})"
        return None if actual == expected else f"{path}: sha256 {actual[:12]}…, manifest says {expected[:12]}…"

    run: Callable[[tuple[str, str, str]], str | None] = check
    with ThreadPoolExecutor(max(1, store.concurrency)) as pool:
        return [p for p in pool.map(run, to_hash) if p]
