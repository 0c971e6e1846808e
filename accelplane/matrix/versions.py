"""Version strings as the vendors write them, parsed once and compared correctly.

One parser for every component of a stack: NVIDIA drivers (`570.172.08`), CUDA (`12.8`),
Python wheels with PEP 440 suffixes (`2.9.0.post6`, `0.1.dev20240729`, `2.6.0+cu124`), Huawei CANN
release candidates (`8.3.RC1`, which sorts before `8.3.0`), Neuron's five-part torch-neuronx
versions (`2.5.1.2.4.0`) and Debian-style package revisions (`570.172.08-1`, `1.12.0-aws`) whose
suffix is kept as a label but ignored for ordering.

Ordering follows PEP 440: `dev` < pre-release (`a`/`b`/`rc`) < final < `post`; trailing zero
release segments are insignificant (`12.8` == `12.8.0`). Wildcards (`2.9.x`, `2.9.*`) are refused:
a software profile pins, nothing floats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

_VERSION_RE = re.compile(
    r"""
    ^v?(?P<release>\d+(?:\.\d+)*)
    (?:[.-]?(?P<pre>rc|a|b|alpha|beta|c)\.?(?P<pre_n>\d+)?)?
    (?:[.-]?post\.?(?P<post>\d+))?
    (?:[.-]?dev\.?(?P<dev>\d+))?
    (?:[+-](?P<local>[a-z0-9][a-z0-9.~+_-]*))?$
    """,
    re.VERBOSE | re.IGNORECASE,
)
_PRE_RANK = {"alpha": 0, "a": 0, "beta": 1, "b": 1, "c": 2, "rc": 2}
# As the declaration's version fields (accelplane/declaration/). Longer text is no vendor's version,
# and a 5,000-digit segment would fail int() with a ValueError, not a VersionError.
MAX_LENGTH = 64


class VersionError(ValueError):
    """A string that is not a version; the message says what was expected."""


@dataclass(frozen=True, order=False)
class Version:
    """A parsed version; `str()` gives back the text as written."""

    text: str
    release: tuple[int, ...]
    pre: tuple[int, int] | None = None
    post: int | None = None
    dev: int | None = None
    local: str | None = None
    _key: tuple[object, ...] = field(default=(), repr=False, compare=False, hash=False)

    # -- construction --------------------------------------------------------------------------
    @staticmethod
    def parse(text: str) -> Version:
        return _parse(text)

    # -- views -----------------------------------------------------------------------------------
    @property
    def major(self) -> int:
        return self.release[0]

    @property
    def minor(self) -> int:
        return self.release[1] if len(self.release) > 1 else 0

    def truncate(self, parts: int) -> Version:
        """The first `parts` release segments as a version (`570.172.08` -> `570` for parts=1)."""
        return _parse(".".join(str(n) for n in self.release[:parts]))

    def has_prefix(self, prefix: Version) -> bool:
        """True when `prefix`'s release segments start this version's (`2.9.1` has prefix `2.9`)."""
        padded = self.release + (0,) * max(0, len(prefix.release) - len(self.release))
        return padded[: len(prefix.release)] == prefix.release

    def same_series(self, other: Version, parts: int = 2) -> bool:
        """Equal in the first `parts` release segments (missing segments count as 0)."""
        mine = self.release + (0,) * parts
        theirs = other.release + (0,) * parts
        return mine[:parts] == theirs[:parts]

    # -- ordering (PEP 440 semantics, local label ignored) ---------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __lt__(self, other: Version) -> bool:
        return self._key < other._key

    def __le__(self, other: Version) -> bool:
        return self._key <= other._key

    def __gt__(self, other: Version) -> bool:
        return self._key > other._key

    def __ge__(self, other: Version) -> bool:
        return self._key >= other._key

    def __str__(self) -> str:
        return self.text


@lru_cache(maxsize=4096)
def _parse(text: str) -> Version:
    if not isinstance(text, str):
        raise VersionError(f"expected a version string, got {type(text).__name__} {text!r}")
    stripped = text.strip()
    if len(stripped) > MAX_LENGTH:
        raise VersionError(f"a version of {len(stripped)} characters (at most {MAX_LENGTH}): {stripped[:20]!r}...")
    match = _VERSION_RE.match(stripped)
    if match is None:
        raise VersionError(
            f"malformed version {text!r} (expected dot-separated numbers such as 570.172.08, 12.8, "
            "2.9.0.post6 or 8.3.RC1; wildcards are not allowed, pin an exact version)"
        )
    release = tuple(int(part) for part in match["release"].split("."))
    pre = None
    if match["pre"]:
        pre = (_PRE_RANK[match["pre"].lower()], int(match["pre_n"] or 0))
    post = int(match["post"]) if match["post"] is not None else None
    dev = int(match["dev"]) if match["dev"] is not None else None
    trimmed = release
    while len(trimmed) > 1 and trimmed[-1] == 0:
        trimmed = trimmed[:-1]
    if pre is None and post is None and dev is not None:
        phase: tuple[int, ...] = (-2,)
    elif pre is not None:
        phase = (-1, *pre)
    else:
        phase = (0,)
    key = (trimmed, phase, -1 if post is None else post, float("inf") if dev is None else dev)
    return Version(stripped, release, pre, post, dev, match["local"], key)


def parse_version(text: str) -> Version:
    """Parse `text` or raise `VersionError` with a message fit for the user."""
    return _parse(text)


