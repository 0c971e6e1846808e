"""Python wheels from a PEP 691 (JSON) or PEP 503 (HTML) simple index, or a find-links directory:
the file pip would pick for the group's Python and CPU, with the hash the index publishes, and the
wheels its `Requires-Dist` pull in (from the PEP 658 metadata file when the index serves one, else
from the wheel itself).

Dependencies are resolved like pip's first choice (the highest version every requirement seen so
far allows, markers evaluated for the target); pip's backtracking is not done: a conflict is an
error naming both requirements.
"""

from __future__ import annotations

import json
import re
import tempfile
import urllib.parse
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from html.parser import HTMLParser
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from accelplane.bundle import net
from accelplane.bundle.lockfile import ArtifactError
from accelplane.errors import InputError

_JSON = "application/vnd.pypi.simple.v1+json"


@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str
    sha256: str | None
    metadata_url: str | None  # PEP 658/714


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links.append(dict(attrs))


def _from_link(href: str, base: str, metadata: str | None) -> IndexFile:
    url, _, fragment = urllib.parse.urljoin(base, href).partition("#")
    sha256 = fragment.removeprefix("sha256=") if fragment.startswith("sha256=") else None
    filename = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    has_metadata = metadata is not None and metadata != "false"
    return IndexFile(filename, url, sha256, url + ".metadata" if has_metadata else None)


def project_files(index: str, project: str) -> list[IndexFile]:
    """The files the index lists for `project` (PEP 691 JSON preferred, PEP 503 HTML otherwise)."""
    if not index.startswith(("http://", "https://", "file:")):
        return _directory_files(index)
    page = index.rstrip("/") + "/" + canonicalize_name(project) + "/"
    if index.startswith("file:"):
        return _directory_files(urllib.parse.urlsplit(index).path)
    body, content_type = net.read(page, accept=f"{_JSON}, text/html;q=0.1")
    if content_type.split(";")[0].strip() == _JSON:

        data = json.loads(body)
        return [
            IndexFile(
                item["filename"],
                urllib.parse.urljoin(page, item["url"]),
                (item.get("hashes") or {}).get("sha256"),
                urllib.parse.urljoin(page, item["url"]) + ".metadata"
                if item.get("core-metadata") or item.get("dist-info-metadata")
                else None,
            )
            for item in data.get("files", [])
        ]
    parser = _Links()
    parser.feed(body.decode("utf-8", "replace"))
    return [
        _from_link(str(link["href"]), page, link.get("data-core-metadata") or link.get("data-dist-info-metadata"))
        for link in parser.links
        if link.get("href")
    ]


def _directory_files(directory: str) -> list[IndexFile]:
    """A find-links directory read where the lock runs: pip computes the hashes itself there."""
    root = Path(directory)
    if not root.is_dir():
        raise InputError.single(
            f"the wheel directory {directory} is not readable here; `bundle lock` reads it where it runs "
            "(declare bare_metal.python.index_url, or run the lock where the directory is)",
            field="bare_metal.python.find_links",
        )
    return [IndexFile(path.name, path.as_uri(), None, None) for path in sorted(root.glob("*.whl"))]


def target_tags(python: str, architecture: str, glibc: str | None) -> list[Tag]:
    """The tags pip on the node accepts, best first: CPython `python`, Linux on `architecture`,
    manylinux up to the OS's glibc (PEP 600)."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(architecture, architecture)
    major, minor = (int(part) for part in python.split(".")[:2])
    glibc_minor = int((glibc or "2.17").split(".")[1])
    platforms = [f"manylinux_2_{m}_{machine}" for m in range(glibc_minor, 16, -1)]
    legacy = {"manylinux_2_17": "manylinux2014", "manylinux_2_12": "manylinux2010", "manylinux_2_5": "manylinux1"}
    platforms += [f"{legacy[p.rsplit('_', 1)[0]]}_{machine}" for p in platforms if p.rsplit("_", 1)[0] in legacy]
    platforms.append(f"linux_{machine}")
    tags = list(cpython_tags((major, minor), platforms=platforms))
    tags += list(compatible_tags((major, minor), f"cp{major}{minor}", platforms=platforms))
    return tags


@dataclass(frozen=True)
class Wheel:
    name: str
    version: str
    file: IndexFile
    sha256: str
    size: int | None
    requires: tuple[str, ...]


def _best(
    files: list[IndexFile], name: str, specifier: SpecifierSet, tags: list[Tag]
) -> tuple[IndexFile, Version] | None:
    rank = {tag: index for index, tag in enumerate(tags)}
    best: tuple[Version, int, IndexFile] | None = None
    for item in files:
        try:
            project, version, _build, wheel_tags = parse_wheel_filename(item.filename)
        except InvalidWheelFilename:
            continue  # an sdist or another file: pip would build it; a lock takes wheels only
        if project != canonicalize_name(name) or not specifier.contains(version, prereleases=True):
            continue
        scores = [rank[tag] for tag in wheel_tags if tag in rank]
        if not scores:
            continue
        key = (version, -min(scores), item)
        if best is None or key[:2] > best[:2]:
            best = key
    return (best[2], best[0]) if best else None


def _requires(file: IndexFile, wheel: Path | None) -> tuple[str, ...]:
    if file.metadata_url:
        text = net.read(file.metadata_url)[0].decode("utf-8", "replace")
    else:
        assert wheel is not None
        with zipfile.ZipFile(wheel) as archive:
            names = [n for n in archive.namelist() if re.match(r"^[^/]+\.dist-info/METADATA$", n)]
            if not names:
                raise ArtifactError(f"{file.filename}: no .dist-info/METADATA in the wheel")
            text = archive.read(names[0]).decode("utf-8", "replace")
    return tuple(Parser().parsestr(text).get_all("Requires-Dist") or ())


def resolve(
    requirements: list[str], index: str, *, python: str, architecture: str, glibc: str | None
) -> list[tuple[Wheel, str]]:
    """Each wheel the requirements install, with what asked for it (a requirement or a wheel)."""
    tags = target_tags(python, architecture, glibc)
    environment = {
        "python_version": python,
        "python_full_version": f"{python}.0",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": tags[0].platform.rsplit("_", 1)[-1],
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "os_name": "posix",
    }
    pending: list[tuple[Requirement, str]] = []
    for text in requirements:
        try:
            requirement = Requirement(text)
        except InvalidRequirement as error:
            raise InputError.single(f"{text!r} is not a requirement: {error}") from None
        exact = [s for s in requirement.specifier if s.operator in ("==", "===") and "*" not in s.version]
        if len(exact) != 1 or len(requirement.specifier) != 1:
            raise InputError.single(f"{text!r} is a floating reference: a lock takes `name==version` only")
        pending.append((requirement, "requirement " + text))
    chosen: dict[str, tuple[Wheel, str, SpecifierSet]] = {}
    while pending:
        requirement, wanted_by = pending.pop(0)
        if requirement.marker is not None and not requirement.marker.evaluate({**environment, "extra": ""}):
            continue
        name = canonicalize_name(requirement.name)
        if name in chosen:
            wheel, _, _specifier = chosen[name]
            if not requirement.specifier.contains(wheel.version, prereleases=True):
                raise ArtifactError(
                    f"{wanted_by} needs {requirement}, but {wheel.name}=={wheel.version} "
                    f"was chosen for {chosen[name][1]}"
                )
            continue
        files = project_files(index, requirement.name)
        picked = _best(files, requirement.name, requirement.specifier, tags)
        if picked is None:
            raise ArtifactError(
                f"{requirement} ({wanted_by}): no wheel for Python {python} on {architecture} in {net.redact(index)}"
            )
        file, version = picked
        try:
            Version(str(version))
        except InvalidVersion:
            raise ArtifactError(f"{file.filename}: version {version} is not a PEP 440 version") from None
        size = None
        sha256 = file.sha256
        with tempfile.TemporaryDirectory(prefix="accelplane-wheel-") as scratch:
            local = Path(scratch) / file.filename
            if file.sha256 is None or file.metadata_url is None:
                # No published hash, or no metadata file: the wheel itself is read (streamed to disk).
                actual, size = net.hash_url(file.url, keep=local)
                if sha256 is not None and actual != sha256:
                    raise ArtifactError(f"{file.filename}: the index's sha256 {sha256} is not the file's ({actual})")
                sha256 = actual
            requires = _requires(file, local if local.exists() else None)
        assert sha256 is not None  # from the index, or computed above
        wheel = Wheel(requirement.name, str(version), file, sha256, size, requires)
        chosen[name] = (wheel, wanted_by, requirement.specifier)
        for dependency in requires:
            pending.append((Requirement(dependency), f"{wheel.name}=={wheel.version}"))
    return [(wheel, wanted_by) for wheel, wanted_by, _ in chosen.values()]
