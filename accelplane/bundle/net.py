"""Reading upstream sources (http, https and file URLs, or a local path) for `bundle lock` and
`bundle fetch`: bounded reads, and resumable downloads checked against a SHA-256 as they stream."""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from accelplane.bundle.lockfile import ArtifactError
from accelplane.errors import InputError

TIMEOUT_S = 60
# An index (Packages, simple page, index.yaml) larger than this is not an index.
MAX_INDEX_BYTES = 512 * 1024 * 1024
_CHUNK = 1024 * 1024


def as_url(location: str) -> str:
    """A plain absolute path is a file: URL."""
    return Path(location).as_uri() if location.startswith("/") else location


def redact(url: str) -> str:
    """The URL without user:password, for messages and the lock (credentials never go in a file)."""
    parts = urllib.parse.urlsplit(url)
    if parts.username or parts.password:
        parts = parts._replace(netloc=(parts.hostname or "") + (f":{parts.port}" if parts.port else ""))
    return urllib.parse.urlunsplit(parts)


def read(url: str, *, accept: str | None = None, limit: int = MAX_INDEX_BYTES) -> tuple[bytes, str]:
    """The body of `url` and its content type; InputError naming the URL when it cannot be read."""
    request = urllib.request.Request(as_url(url), headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            body = response.read(limit + 1)
            content_type = response.headers.get("Content-Type", "") or ""
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise InputError.single(f"cannot read {redact(url)}: {getattr(error, 'reason', error)}") from None
    if len(body) > limit:
        raise InputError.single(f"{redact(url)} is larger than {limit} bytes; not an index")
    return body, content_type


def exists(url: str) -> bool:
    try:
        read(url, limit=MAX_INDEX_BYTES)
    except InputError:
        return False
    return True


def digest_of(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def download(
    url: str,
    dest: Path,
    *,
    sha256: str | None,
    size: int | None,
    progress: Callable[[int, int | None], None] | None = None,
) -> tuple[str, int]:
    """`url` into `dest` through `dest.part`, resuming a partial file with a Range request; the
    result is renamed into place only when its SHA-256 is the expected one. Returns (sha256, size)."""
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    offset = part.stat().st_size if part.exists() else 0
    if size is not None and offset > size:
        part.unlink()
        offset = 0
    headers = {"Range": f"bytes={offset}-"} if offset else {}
    request = urllib.request.Request(as_url(url), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            resumed = offset > 0 and getattr(response, "status", 200) == 206
            if not resumed:
                offset = 0  # the server ignored the range (or a file: URL): start again
            with part.open("ab" if resumed else "wb") as out:
                done = offset
                while chunk := response.read(_CHUNK):
                    out.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done, size)
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise ArtifactError(f"cannot download {redact(url)}: {getattr(error, 'reason', error)}") from None
    actual, length = digest_of(part)
    if sha256 is not None and actual != sha256:
        part.unlink()
        raise ArtifactError(f"{redact(url)}: sha256 {actual} is not the locked {sha256}; nothing kept")
    os.replace(part, dest)
    return actual, length


def hash_url(url: str, *, keep: Path | None = None) -> tuple[str, int]:
    """(sha256, size) of what `url` serves, streamed through a temporary file (kept at `keep`
    when given, for a caller that reads it next): installers and wheels run to gigabytes."""

    with tempfile.TemporaryDirectory(prefix="accelplane-lock-") as scratch:
        target = Path(scratch) / "download"
        result = download(url, target, sha256=None, size=None)
        if keep is not None:
            os.replace(target, keep)
        return result
