"""Published releases: a pinned version that was never released cannot be installed.

`published.yaml` lists every release of a package (PyPI, or a vendor's release tags) within a
window. A pinned version inside the window that is not a release is incompatible - pip or the
package manager has nothing to install - whatever the other checks say about its pairing. A
version outside the window is left to the other checks (it may be newer than the data).
"""

from __future__ import annotations

from accelplane.matrix import facts as f
from accelplane.matrix.checks.context import Context, listing
from accelplane.matrix.versions import Version, parse_version

# Matrix keys judged against another key's list (the ROCm user space is a ROCm release).
_ALIASES = {"rocm_userspace": "rocm"}


def record_for(ctx: Context, key: str) -> f.PublishedPackage | None:
    wanted = _ALIASES.get(key, key)
    return next((p for p in ctx.data.published.packages if p.key == wanted), None)


def never_released(ctx: Context, key: str, version: Version) -> f.PublishedPackage | None:
    """The package record when `version` lies inside its window and is not a release, else None."""
    record = record_for(ctx, key)
    if record is None:
        return None
    if record.closed is not None and version > parse_version(record.known_until):
        return record  # a closed line: nothing after its last release
    if not parse_version(record.known_from) <= version <= parse_version(record.known_until):
        return None
    if any(version == parse_version(v) for v in record.versions):
        return None
    return record


def _neighbours(record: f.PublishedPackage, version: Version) -> str:
    listed = [parse_version(v) for v in record.versions]
    below = [v for v in listed if v < version]
    above = [v for v in listed if v > version]
    return listing([str(x) for x in (below[-1:] + above[:1])])


def releases(ctx: Context) -> None:
    for key in sorted(ctx.stack.raw):
        version = ctx.stack.v(key) if key in _KEYS else None
        if version is None:
            continue
        record = never_released(ctx, key, version)
        if record is None:
            continue
        if record.closed is not None and version > parse_version(record.known_until):
            closed = record.closed
            ctx.bad(
                f"release.{key}",
                f"{record.package} {version} was never released: {closed.reason} (as of {closed.as_of}); the last "
                f"release is {record.known_until}; it cannot be installed; fix: pin {record.package} "
                f"{record.known_until} or drop it",
                closed.source,
                (key,),
            )
            continue
        ctx.bad(
            f"release.{key}",
            f"{record.package} {version} was never released ({record.package} releases from {record.known_from} "
            f"to {record.known_until} are known; the nearest are {_neighbours(record, version)}): it cannot be "
            f"installed; fix: pin a released {record.package}",
            record.source,
            (key,),
        )


_KEYS = frozenset({"torchvision", "torchaudio", "jaxlib", "rocm", "rocm_userspace"})

CHECKS = (releases,)
