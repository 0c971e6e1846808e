"""`bundle verify`: offline, every locked artifact is in the mirror with its locked checksum.

Files (debs, wheels, installers, HTTP charts) are hashed in full. Images and OCI charts are checked
in the mirror's OCI image layout (`oci/<repository>`): `index.json` must list the locked manifest
digest, and every blob the manifest reaches (child manifests, config, layers) must be present with
its digest. Cloud images stay in the cloud and are not checked here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from accelplane.bundle.lockfile import FILE_KINDS, Artifact, Kind, Lock
from accelplane.bundle.net import digest_of


@dataclass(frozen=True)
class Problem:
    artifact: Artifact
    state: str  # missing | altered
    detail: str

    def __str__(self) -> str:
        return f"{self.state}: {self.artifact.label}: {self.detail}"


def _blob(layout: Path, digest: str) -> Path:
    algorithm, _, value = digest.partition(":")
    return layout / "blobs" / algorithm / value


def _check_blob(layout: Path, digest: str) -> str | None:
    """None when the blob is there with its digest; else why not."""
    path = _blob(layout, digest)
    if not path.is_file():
        return f"blob {digest} is missing from {layout}"
    actual, _ = digest_of(path)
    if f"sha256:{actual}" != digest:
        return f"blob {path} has sha256:{actual}, not {digest}"
    return None


def _check_layout(layout: Path, digest: str) -> tuple[str, str] | None:
    """(state, detail) of an image in an OCI layout, or None when it is whole."""
    index_file = layout / "index.json"
    if not index_file.is_file():
        return "missing", f"no OCI layout at {layout}"
    try:
        index = json.loads(index_file.read_text())
    except (ValueError, OSError) as error:
        return "altered", f"{index_file} is not readable JSON ({error})"
    if digest not in {m.get("digest") for m in index.get("manifests", [])}:
        return "missing", f"{index_file} does not list {digest}"
    pending = [digest]
    seen: set[str] = set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        problem = _check_blob(layout, current)
        if problem:
            return ("missing" if "missing" in problem else "altered"), problem
        try:
            document = json.loads(_blob(layout, current).read_bytes())
        except ValueError:
            continue  # a layer or config blob: its digest is all there is to check
        if not isinstance(document, dict):
            continue
        for child in document.get("manifests", []) + document.get("layers", []) + [document.get("config") or {}]:
            if isinstance(child, dict) and isinstance(child.get("digest"), str):
                # Layers and configs are checked by digest only; manifests are walked.
                if child.get("mediaType", "").endswith(
                    ("manifest.v1+json", "manifest.v2+json", "index.v1+json", "manifest.list.v2+json")
                ):
                    pending.append(child["digest"])
                else:
                    problem = _check_blob(layout, child["digest"])
                    if problem:
                        return ("missing" if "missing" in problem else "altered"), problem
    return None


def verify_mirror(lock: Lock, mirror: Path, progress: Callable[[Artifact], None] | None = None) -> list[Problem]:
    problems: list[Problem] = []
    for artifact in lock.artifacts:
        if progress:
            progress(artifact)
        if artifact.kind is Kind.cloud_image or artifact.path is None:
            continue
        if artifact.kind in FILE_KINDS and artifact.sha256 is not None:
            path = mirror / artifact.path
            if not path.is_file():
                problems.append(Problem(artifact, "missing", f"{artifact.path} is not in the mirror"))
                continue
            actual, size = digest_of(path)
            if actual != artifact.sha256:
                problems.append(
                    Problem(artifact, "altered", f"{artifact.path} has sha256 {actual}, locked {artifact.sha256}")
                )
            elif artifact.size is not None and size != artifact.size:
                problems.append(
                    Problem(artifact, "altered", f"{artifact.path} is {size} bytes, locked {artifact.size}")
                )
        elif artifact.digest is not None:
            found = _check_layout(mirror / artifact.path, artifact.digest)
            if found:
                problems.append(Problem(artifact, *found))
    return problems
