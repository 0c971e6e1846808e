"""The target end's restore drill for a migration's model files (`accelplane migrate artifacts`): does the
target bucket hold what the source bucket holds, byte for byte, before any client is moved?

1. Both prefixes are listed: every source object must be at the target under the same key below the
   prefix, with the same size (a missing or resized object fails).
2. A sample of `artifacts.sample` objects, spread evenly over the keys in order, is compared by content:
   the CRC32C each store keeps for the whole object (Cloud Storage always; S3 when the object was uploaded
   with a full-object CRC32C), else the object's bytes re-hashed. An S3 ETag is never taken for a
   checksum: it is not an MD5 of the bytes for multipart uploads.
3. The report (JSON) is written where `migrate advance` looks before the first step:
   `<parity.reports>/artifacts/<migration>.json`, naming the prefixes and `copy_on` it proves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from accelplane.migration.stack import MigrationStack
from accelplane.rollout.parity.storage import ObjectEntry, ObjectStore, StoreError

KIND = "accelplane.migration.artifacts_drill/v1"


@dataclass
class DrillResult:
    source: str  # scheme://bucket/prefix
    target: str
    objects: int = 0
    missing: list[str] = field(default_factory=list)
    resized: list[str] = field(default_factory=list)
    compared: list[dict[str, Any]] = field(default_factory=list)  # key, how, same
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.objects > 0 and not (self.missing or self.resized or self.problems) and all(
            item["same"] for item in self.compared)


def spread(keys: list[str], count: int) -> list[str]:
    """`count` keys spread evenly over `keys` (all of them when there are fewer), first and last included."""
    if len(keys) <= count:
        return list(keys)
    if count == 1:
        return [keys[0]]
    return [keys[round(index * (len(keys) - 1) / (count - 1))] for index in range(count)]


def _checksum(store: ObjectStore, uri: str) -> tuple[int | None, str]:
    """(CRC32C, how it was had): the store's own, else the bytes hashed; None when the object is gone."""
    kept = store.crc32c(uri)
    if kept is not None:
        return kept, "stored crc32c"
    hashed = store.hashed_crc32c(uri)
    return (None, "missing") if hashed is None else (hashed, "bytes re-hashed")


def drill(source: ObjectStore, source_uri: str, target: ObjectStore, target_uri: str, sample: int) -> DrillResult:
    result = DrillResult(source=source_uri, target=target_uri)
    try:
        listed: list[ObjectEntry] = source.entries(source_uri)
        at_target = {entry.key: entry for entry in target.entries(target_uri)}
    except StoreError as error:
        result.problems.append(str(error))
        return result
    result.objects = len(listed)
    if not listed:
        result.problems.append(f"nothing under {source_uri}: nothing to prove")
    for entry in listed:
        found = at_target.get(entry.key)
        if found is None:
            result.missing.append(entry.key)
        elif found.size != entry.size:
            result.resized.append(f"{entry.key}: {entry.size} bytes at the source, {found.size} at the target")
    present = [entry.key for entry in listed if entry.key in at_target and entry.key not in result.missing]
    for key in spread(present, sample):
        try:
            (mine, how_mine), (theirs, how_theirs) = (_checksum(source, source_uri + key),
                                                      _checksum(target, target_uri + key))
        except StoreError as error:
            result.problems.append(str(error))
            continue
        result.compared.append({"key": key, "same": mine is not None and mine == theirs,
                                "source": how_mine, "target": how_theirs})
    return result


def report_uri(stack: MigrationStack) -> str:
    return f"{stack.migration.parity.reports.rstrip('/')}/artifacts/{stack.stack}.json"


def report(stack: MigrationStack, result: DrillResult, now: datetime) -> dict[str, Any]:
    artifacts = stack.migration.artifacts
    assert artifacts is not None
    return {"kind": KIND, "migration": stack.stack, "at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "copy_on": artifacts.copy_on.isoformat(), "source": result.source, "target": result.target,
            "source_prefix": artifacts.source_prefix, "target_prefix": artifacts.target_prefix,
            "objects": result.objects, "missing": result.missing, "resized": result.resized,
            "compared": result.compared, "problems": result.problems,
            "verdict": "pass" if result.passed else "fail"}


def vouches(stack: MigrationStack, data: bytes | None) -> tuple[bool, str]:
    """Whether a drill report proves this migration's copy (same prefixes, same copy_on, passed)."""
    artifacts = stack.migration.artifacts
    assert artifacts is not None
    uri = report_uri(stack)
    if data is None:
        return False, f"no restore drill of the model's files yet ({uri}): run `accelplane migrate artifacts`"
    try:
        found = json.loads(data)
    except ValueError:
        return False, f"{uri} is not a restore drill report"
    declared = (artifacts.copy_on.isoformat(), artifacts.source_prefix, artifacts.target_prefix)
    if found.get("kind") != KIND or (found.get("copy_on"), found.get("source_prefix"),
                                     found.get("target_prefix")) != declared:
        return False, f"the restore drill {uri} proves another copy: run `accelplane migrate artifacts` again"
    if found.get("verdict") != "pass":
        return False, f"the restore drill {uri} failed"
    return True, f"the model's files are proven at the target ({found.get('at')}, {uri})"
