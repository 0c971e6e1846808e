"""`bundle.lock.json`: every artifact a stack fetches, with where it comes from, its checksum and
who needs it. Written by `bundle lock` (the one step that reads the network), read by fetch, verify,
export and diff.

Format (lock_version 1): `{"lock_version", "stack", "resolved_at", "architecture", "artifacts":
[...], "outside": [...]}`; an artifact is `{"kind", "name", "version", "architecture", "url",
"sha256" | "digest", "size", "provenance": [{"needed_by", "resolved_at"}], "path", "meta"}`.
`path` is where it lies in a mirror (`bundle fetch`), relative to the mirror's root. `outside`
lists what the declared sources do not carry (a dependency from the OS's own archive, a kernel's
headers): it is not mirrored, and `bundle lock` prints it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from accelplane.errors import InputError
from accelplane.input_files import read_json

LOCK_VERSION = 1
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class Kind(StrEnum):
    deb = "deb"
    wheel = "wheel"
    installer = "installer"
    chart = "chart"
    image = "image"
    cloud_image = "cloud-image"


# Kinds that are files in a mirror (images live in the OCI layout; cloud images stay in the cloud).
FILE_KINDS = frozenset({Kind.deb, Kind.wheel, Kind.installer, Kind.chart})


class ArtifactError(Exception):
    """An artifact that is missing, altered or cannot be fetched: exit 1, naming it."""


@dataclass(frozen=True)
class Artifact:
    kind: Kind
    name: str
    version: str
    architecture: str
    url: str
    sha256: str | None = None
    digest: str | None = None
    size: int | None = None
    path: str | None = None
    provenance: tuple[tuple[str, str], ...] = ()  # (needed_by, resolved_at)
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.kind.value, self.name, self.version, self.architecture)

    @property
    def label(self) -> str:
        return (
            f"{self.kind.value} {self.name}"
            + (f" {self.version}" if self.version else "")
            + (f" ({self.architecture})" if self.architecture not in ("", "all", "any") else "")
        )

    @property
    def checksum(self) -> str:
        return self.digest or f"sha256:{self.sha256}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind.value,
            "name": self.name,
            "version": self.version,
            "architecture": self.architecture,
            "url": self.url,
        }
        if self.sha256:
            data["sha256"] = self.sha256
        if self.digest:
            data["digest"] = self.digest
        data["size"] = self.size
        if self.path:
            data["path"] = self.path
        data["provenance"] = [{"needed_by": who, "resolved_at": when} for who, when in self.provenance]
        if self.meta:
            data["meta"] = self.meta
        return data


@dataclass
class Lock:
    stack: str
    resolved_at: str
    artifacts: list[Artifact] = field(default_factory=list)
    outside: list[dict[str, str]] = field(default_factory=list)

    def add(self, artifact: Artifact) -> None:
        """Add, or merge the provenance of an artifact already locked for someone else."""
        for index, existing in enumerate(self.artifacts):
            if existing.key == artifact.key:
                if existing.checksum != artifact.checksum:
                    raise ArtifactError(
                        f"{artifact.label}: two sources disagree ({existing.url} {existing.checksum}, "
                        f"{artifact.url} {artifact.checksum})"
                    )
                merged = tuple(dict.fromkeys(existing.provenance + artifact.provenance))
                self.artifacts[index] = Artifact(**{**existing.__dict__, "provenance": merged})
                return
        self.artifacts.append(artifact)

    def to_json(self) -> dict[str, Any]:
        return {
            "lock_version": LOCK_VERSION,
            "stack": self.stack,
            "resolved_at": self.resolved_at,
            "artifacts": [a.to_json() for a in sorted(self.artifacts, key=lambda a: a.key)],
            "outside": sorted(self.outside, key=lambda o: (o["name"], o["needed_by"])),
        }

    def text(self) -> str:
        return json.dumps(self.to_json(), indent=1) + "\n"

    def write(self, path: Path) -> None:
        text = self.text()
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(text)
        temporary.replace(path)


def _field(data: dict[str, Any], key: str, kind: type, where: str, file: str, *, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError.single(f"expected {kind.__name__}", file=file, field=f"{where}.{key}")
    return value


def load_lock(path: Path) -> Lock:
    """Read and check a lock file; InputError (exit 2) naming the file and field when it is not one."""

    file = str(path)
    data = read_json(path, option="--lock")
    if not isinstance(data, dict) or data.get("lock_version") != LOCK_VERSION:
        raise InputError.single(
            f"expected a bundle lock with lock_version {LOCK_VERSION}", file=file, field="lock_version"
        )
    artifacts = _field(data, "artifacts", list, "", file)
    lock = Lock(_field(data, "stack", str, "", file), _field(data, "resolved_at", str, "", file))
    for index, item in enumerate(artifacts):
        where = f"artifacts[{index}]"
        if not isinstance(item, dict):
            raise InputError.single("expected an object", file=file, field=where)
        try:
            kind = Kind(item.get("kind"))
        except ValueError:
            raise InputError.single(
                f"expected one of {', '.join(k.value for k in Kind)}", file=file, field=f"{where}.kind"
            ) from None
        sha256 = _field(item, "sha256", str, where, file, optional=True)
        digest = _field(item, "digest", str, where, file, optional=True)
        if sha256 is not None and not _SHA256.match(sha256):
            raise InputError.single("expected 64 lower-case hex digits", file=file, field=f"{where}.sha256")
        if digest is not None and not _DIGEST.match(digest):
            raise InputError.single("expected sha256:<64 hex>", file=file, field=f"{where}.digest")
        if kind is not Kind.cloud_image and sha256 is None and digest is None:
            raise InputError.single("an artifact needs sha256 or digest", file=file, field=where)
        provenance = _field(item, "provenance", list, where, file)
        lock.artifacts.append(
            Artifact(
                kind,
                _field(item, "name", str, where, file),
                _field(item, "version", str, where, file),
                _field(item, "architecture", str, where, file),
                _field(item, "url", str, where, file),
                sha256,
                digest,
                _field(item, "size", int, where, file, optional=True),
                _field(item, "path", str, where, file, optional=True),
                tuple((str(p.get("needed_by")), str(p.get("resolved_at"))) for p in provenance if isinstance(p, dict)),
                _field(item, "meta", dict, where, file, optional=True) or {},
            )
        )
        path_value = lock.artifacts[-1].path
        if path_value is not None and (path_value.startswith("/") or ".." in Path(path_value).parts):
            raise InputError.single("expected a path inside the mirror", file=file, field=f"{where}.path")
    lock.outside = [o for o in data.get("outside") or [] if isinstance(o, dict)]
    return lock
