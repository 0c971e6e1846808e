"""Checkpoint restore drill: the newest checkpoint can be found, is recent, and reads back intact.

Where: each training workload that may write to the `checkpoints` bucket, under its declared prefix
(e.g. `trainer/`). What a checkpoint is, for this drill: a "directory" holding an integrity
manifest, `<prefix>.../<name>/manifest.json`, written last by the trainer once every file is
uploaded:

```json
{"files": [{"path": "model-00001-of-00004.safetensors", "size": 4998243328, "sha256": "<64 hex>"}, ...]}
```

`path` is relative to the manifest's directory. The newest manifest (by `LastModified`, then by
key, so name checkpoint directories by zero-padded step or timestamp) is the newest complete
checkpoint. Checks:

- `checkpoint.present`: a manifest exists under the prefix;
- `checkpoint.age`: it is younger than `--checkpoint-max-age` (the interval the trainer promises);
- `checkpoint.integrity`: every listed file exists with the listed size and SHA-256. With
  `--checkpoint-verify download` (default) each file is streamed and hashed: a real restore, which
  also proves that these credentials can read the objects and decrypt them with the data key. With
  `checksum`, S3's stored full-object SHA-256 (uploads with `ChecksumAlgorithm=SHA256`) is compared
  without moving data; a file without one (multipart uploads carry a checksum of part checksums) is
  downloaded.

Streaming reads are retried (3 attempts, exponential backoff) when the connection drops mid-body,
which botocore does not retry on its own.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.exceptions import BotoCoreError

from accelplane.verify.clients import API_ERRORS, describe_error
from accelplane.verify.model import CheckId, CheckResult, Status, Subject

MANIFEST = "manifest.json"
_CHUNK = 8 * 1024 * 1024
_DURATION = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


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


class _Drill:
    def __init__(self, s3: Any, bucket: str, *, mode: str, concurrency: int) -> None:
        self.s3 = s3
        self.bucket = bucket
        self.mode = mode
        self.concurrency = concurrency

    def listing(self, prefix: str) -> list[dict[str, Any]]:
        objects: list[dict[str, Any]] = []
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            objects.extend(page.get("Contents", []))
        return objects

    def read_json(self, key: str) -> Any:
        body = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"]
        try:
            return json.loads(body.read())
        finally:
            body.close()

    def sha256_by_download(self, key: str, attempts: int = 3) -> str:
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

    def sha256_by_checksum(self, key: str) -> str | None:
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
            stored = self.sha256_by_checksum(key)
            if stored is not None:
                return stored
        return self.sha256_by_download(key)


def checkpoint_drill(
    s3: Any,
    bucket: str,
    prefix: str,
    *,
    max_age: timedelta | None,
    mode: str = "download",
    concurrency: int = 8,
    now: datetime | None = None,
    subject: Subject | None = None,
    workload: str = "",
) -> list[CheckResult]:
    now = now or datetime.now(UTC)
    where: Subject = subject or {}
    location = f"s3://{bucket}/{prefix}"
    label = f"{workload}: " if workload else ""
    drill = _Drill(s3, bucket, mode=mode, concurrency=concurrency)
    try:
        objects = drill.listing(prefix)
    except API_ERRORS as error:
        code, message = describe_error(error)
        return [
            CheckResult(
                CheckId.checkpoint_present, Status.failed, f"{label}cannot list {location}: {code}: {message}", **where
            )
        ]
    manifests = [o for o in objects if o["Key"].endswith("/" + MANIFEST) or o["Key"] == prefix + MANIFEST]
    if not manifests:
        return [
            CheckResult(
                CheckId.checkpoint_present,
                Status.failed,
                f"{label}no checkpoint under {location} (no */{MANIFEST})",
                **where,
            )
        ]
    # LastModified has one-second resolution: on a tie, the later name (zero-padded steps, timestamps).
    newest = max(manifests, key=lambda o: (o["LastModified"], o["Key"]))
    key = newest["Key"]
    directory = key[: -len(MANIFEST)]
    results = [
        CheckResult(
            CheckId.checkpoint_present,
            Status.passed,
            f"{label}newest checkpoint s3://{bucket}/{directory}",
            actual=f"s3://{bucket}/{key}",
            **where,
        )
    ]
    modified = newest["LastModified"]
    modified = modified if modified.tzinfo else modified.replace(tzinfo=UTC)
    age = now - modified
    if max_age is None:
        results.append(
            CheckResult(
                CheckId.checkpoint_age,
                Status.skipped,
                f"{label}newest checkpoint is {_human(age)} old (no --checkpoint-max-age given)",
                actual=int(age.total_seconds()),
                **where,
            )
        )
    elif age > max_age:
        results.append(
            CheckResult(
                CheckId.checkpoint_age,
                Status.failed,
                f"{label}newest checkpoint is {_human(age)} old, more than {_human(max_age)}",
                expected=int(max_age.total_seconds()),
                actual=int(age.total_seconds()),
                path="age_seconds",
                **where,
            )
        )
    else:
        results.append(
            CheckResult(
                CheckId.checkpoint_age,
                Status.passed,
                f"{label}newest checkpoint is {_human(age)} old (limit {_human(max_age)})",
                **where,
            )
        )
    results.append(_integrity(drill, directory, key, {o["Key"]: o for o in objects}, where, label))
    return results


def _integrity(
    drill: _Drill, directory: str, key: str, listed: dict[str, dict[str, Any]], where: Subject, label: str
) -> CheckResult:
    try:
        manifest = drill.read_json(key)
    except API_ERRORS as error:
        code, message = describe_error(error)
        return CheckResult(
            CheckId.checkpoint_integrity, Status.failed, f"{label}cannot read {key}: {code}: {message}", **where
        )
    except ValueError:
        return CheckResult(CheckId.checkpoint_integrity, Status.failed, f"{label}{key} is not valid JSON", **where)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, list) or not files:
        return CheckResult(
            CheckId.checkpoint_integrity,
            Status.failed,
            f'{label}{key}: expected {{"files": [{{"path", "size", "sha256"}}, ...]}}',
            **where,
        )
    problems: list[str] = []
    to_hash: list[tuple[str, str, str]] = []
    for index, entry in enumerate(files):
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str) or not path or path.startswith("/") or ".." in path.split("/"):
            problems.append(f"files[{index}]: invalid path {path!r}")
            continue
        object_key = directory + path
        found = listed.get(object_key)
        if found is None:
            problems.append(f"{path}: missing")
            continue
        if found.get("Size") != entry.get("size"):
            problems.append(f"{path}: size {found.get('Size')}, manifest says {entry.get('size')}")
            continue
        expected = str(entry.get("sha256", "")).lower()
        if not re.fullmatch(r"[0-9a-f]{64}", expected):
            problems.append(f"{path}: manifest has no valid sha256")
            continue
        to_hash.append((path, object_key, expected))

    def check(item: tuple[str, str, str]) -> str | None:
        path, object_key, expected = item
        try:
            actual = drill.sha256(object_key)
        except (*API_ERRORS, ConnectionError) as error:
            code, message = describe_error(error)
            return f"{path}: cannot read ({code}: {message})"
        return None if actual == expected else f"{path}: sha256 {actual[:12]}…, manifest says {expected[:12]}…"

    run: Callable[[tuple[str, str, str]], str | None] = check
    with ThreadPoolExecutor(max(1, drill.concurrency)) as pool:
        problems += [p for p in pool.map(run, to_hash) if p]
    total = sum(int(e.get("size") or 0) for e in files if isinstance(e, dict))
    if problems:
        return CheckResult(
            CheckId.checkpoint_integrity,
            Status.failed,
            f"{label}{len(problems)} of {len(files)} files do not match {key}: " + "; ".join(problems[:10]),
            actual=problems,
            **where,
        )
    how = "S3 checksums (downloaded where none)" if drill.mode == "checksum" else "downloaded and hashed"
    return CheckResult(
        CheckId.checkpoint_integrity,
        Status.passed,
        f"{label}{len(files)} files, {total} bytes match the manifest's size and sha256 ({how})",
        **where,
    )
