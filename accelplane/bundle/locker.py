"""`bundle lock`: every artifact a stack fetches, resolved against its declared sources.

The only step that reads the network. Sources: the bare-metal groups' apt repositories (Packages
indexes, checked against their Release files), their Python index or wheel directory, the
installers the roles download, the chart repositories of the Kubernetes layer, the registries of
the images the declaration pins by digest, and the EKS AMI release of each pool (recorded as the
SSM parameter it resolves from; no AWS call).
"""

from __future__ import annotations

import hashlib
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from accelplane.bundle import charts, debian, net, pypi, registry
from accelplane.bundle.lockfile import Artifact, ArtifactError, Kind, Lock
from accelplane.bundle.node_needs import GroupNeeds, group_needs
from accelplane.cloud_support import cloud_images
from accelplane.config.loader import StackConfig
from accelplane.declaration.bare_metal import AptRepository
from accelplane.errors import InputError
from accelplane.k8s.helm_chart import CHARTS
from accelplane.oci_reference import parse_reference

_IMAGE = re.compile(r"^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+@sha256:[0-9a-f]{64}$")
_INSTALLER = re.compile(
    r"^(?P<name>.*?)-?v?(?P<version>\d[\w.+~]*?)\.(?P<ext>tar\.gz|tgz|tar\.xz|tar\.bz2|tar|run|zip)$"
)
# EKS AMI type -> the path part of its SSM parameters (docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html).


@dataclass
class Sources:
    """Where the lock looks besides the declaration: a chart repository per chart key may replace
    the chart's own (a staging copy); empty in normal use."""

    chart_repositories: dict[str, str] = field(default_factory=dict)


Progress = Callable[[str], None]


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _apt_indexes(repository: AptRepository, architecture: str) -> list[debian.Package]:
    """Every package a declared repository offers for `architecture` (and `all`)."""
    packages: list[debian.Package] = []
    uri = repository.uri.rstrip("/")
    for suite in repository.suites:
        if not repository.components:  # a flat repository: `deb URI SUITE` with SUITE ending in /
            base = uri + "/" + suite.strip("/") if suite.strip("/") not in ("", ".") else uri
            indexes = [(base, base, "Packages")]
        else:
            base = f"{uri}/dists/{suite}"
            indexes = [(uri, base, f"{c}/binary-{architecture}/Packages") for c in repository.components]
        release = _release(base)
        for file_base, release_base, relative in indexes:
            data = _read_index(release_base, relative, release)
            packages += debian.parse_packages(
                data, repository=repository.name, base_url=file_base, source=f"{release_base}/{relative}"
            )
    return packages


def _release(base: str) -> dict[str, tuple[str, int]]:
    for name in ("Release", "InRelease"):
        try:
            text = net.read(f"{base}/{name}")[0].decode("utf-8", "replace")
        except InputError:
            continue
        if "-----BEGIN PGP SIGNED MESSAGE-----" in text:
            text = text.split("\n\n", 1)[1].split("-----BEGIN PGP SIGNATURE-----")[0]
        return debian.release_checksums(text)
    return {}


def _read_index(base: str, relative: str, release: dict[str, tuple[str, int]]) -> bytes:

    last_error: InputError | None = None
    for name in (relative + ".gz", relative):
        try:
            data = net.read(f"{base}/{name}")[0]
        except InputError as error:
            last_error = error
            continue
        if name in release and hashlib.sha256(data).hexdigest() != release[name][0]:
            raise ArtifactError(f"{base}/{name}: its sha256 is not the one its Release file lists")
        return data
    assert last_error is not None
    raise last_error


def _at(error: InputError, field: str, stack: StackConfig | None = None) -> InputError:
    """The same problems, pinned to the declaration field whose source they are about (and, given the
    stack, to that field's line in the stack file)."""
    parts: list[str | int] = [int(p) if p.isdigit() else p for p in re.split(r"[.\[\]]+", field) if p]
    where = {"file": str(stack.path), "line": stack.line_of(*parts)} if stack is not None else {}
    return InputError([replace(p, field=p.field or field, **({} if p.file else where)) for p in error.problems])


def lock_stack(
    stack: StackConfig, *, architecture: str = "amd64", sources: Sources | None = None, progress: Progress | None = None
) -> Lock:
    sources = sources or Sources()
    say = progress or (lambda _message: None)
    lock = Lock(stack.stack, _now())
    platform = stack.platform
    if platform.bare_metal is not None:
        _lock_bare_metal(stack, lock, architecture, say)
    _lock_charts(stack, lock, sources, say)
    _lock_images(stack, lock, say)
    _lock_cloud_images(stack, lock)
    return lock


def _lock_bare_metal(stack: StackConfig, lock: Lock, architecture: str, say: Progress) -> None:
    bare_metal = stack.platform.bare_metal
    assert bare_metal is not None
    say(f"reading {len(bare_metal.repositories)} apt repositories for {architecture}")
    available: list[debian.Package] = []
    for index, repository in enumerate(bare_metal.repositories):
        try:
            available += _apt_indexes(repository, architecture)
        except InputError as error:
            raise _at(error, f"bare_metal.repositories[{index}].uri") from None
    resolver = debian.Resolver(available, architecture)
    for index, group in enumerate(bare_metal.groups):
        needs = group_needs(stack, index, architecture)
        resolved_at = _now()
        who = f"bare_metal.groups[{index}] {group.name} (profile {group.software_profile})"
        packages = _lock_debs(lock, resolver, needs, who, resolved_at)
        say(f"{group.name}: {packages} packages")
        if needs.pip:
            wheels = _lock_wheels(stack, lock, needs, group.software_profile, architecture, who, resolved_at)
            say(f"{group.name}: {wheels} wheels")
        for download in needs.downloads:
            lock.add(_installer(download.url, download.sha256, f"{who}, role {download.role}", resolved_at))


def _outside_archive(name: str, needed_by: str) -> dict[str, str]:
    return {"kind": "deb", "name": name, "needed_by": needed_by, "reason": "in no declared repository (the OS archive)"}


def _lock_debs(lock: Lock, resolver: debian.Resolver, needs: GroupNeeds, who: str, resolved_at: str) -> int:
    """The group's pinned and plain packages with their dependency closure; what no declared
    repository has is listed as coming from outside (the OS archive). Returns the closure's size."""
    roots: list[tuple[debian.Package, str]] = []
    for pinned in needs.pinned:
        for name in pinned.packages:
            package = resolver.pinned(name, pinned.pattern)
            if package is None:
                raise ArtifactError(
                    f"{who}: {name} {pinned.pattern} (role {pinned.role}, set {pinned.set}) is in no declared "
                    "repository"
                )
            roots.append((package, f"{who}, role {pinned.role}, set {pinned.set}"))
    for name, role in needs.apt:
        package = resolver.choose(debian.Relation(name), {})
        if package is None:
            lock.outside.append(_outside_archive(name, f"{who}, role {role}"))
            continue
        roots.append((package, f"{who}, role {role}"))
    for what, why in needs.unknown:
        lock.outside.append({"kind": "deb", "name": what, "needed_by": who, "reason": why})
    closure, outside = resolver.closure([package for package, _ in roots])
    reasons = {package.name: reason for package, reason in roots}
    for package in closure:
        lock.add(_deb(package, reasons.get(package.name, f"{who}, dependency"), resolved_at))
    for relation, needed_by in outside:
        lock.outside.append(_outside_archive(relation, f"{who}, {needed_by}"))
    return len(closure)


def _lock_wheels(
    stack: StackConfig, lock: Lock, needs: GroupNeeds, profile: str, architecture: str, who: str, resolved_at: str
) -> int:
    """The framework's wheels, resolved from the group's index; returns how many."""
    source = needs.pip_find_links or needs.pip_index
    if source is None or needs.python is None:
        raise InputError.single(
            "the framework's wheels need the profile's python and an index",
            file=str(stack.path),
            field=f"software_profiles.{profile}.python",
        )
    wheels = pypi.resolve(
        [r for r, _ in needs.pip], source, python=needs.python, architecture=architecture, glibc=needs.glibc
    )
    for wheel, wanted_by in wheels:
        lock.add(
            Artifact(
                Kind.wheel,
                wheel.name,
                wheel.version,
                architecture,
                net.redact(wheel.file.url),
                sha256=wheel.sha256,
                size=wheel.size,
                path=f"python/files/{wheel.file.filename}",
                provenance=((f"{who}, role framework_env, {wanted_by}", resolved_at),),
            )
        )
    return len(wheels)


def _deb(package: debian.Package, needed_by: str, resolved_at: str) -> Artifact:
    filename = package.filename.rsplit("/", 1)[-1]
    return Artifact(
        Kind.deb,
        package.name,
        package.version,
        package.architecture,
        net.redact(package.url),
        sha256=package.sha256,
        size=package.size,
        path=f"apt/pool/{filename}",
        provenance=((needed_by, resolved_at),),
        meta={"repository": package.repository},
    )


def _installer(url: str, declared: str | None, needed_by: str, resolved_at: str) -> Artifact:
    filename = urllib.parse.unquote(urllib.parse.urlsplit(net.as_url(url)).path.rsplit("/", 1)[-1])
    match = _INSTALLER.match(filename)
    name, version = (match["name"], match["version"]) if match else (filename, "")
    if not name:  # GitHub's archive URLs: .../OWNER/REPO/archive/vX.tar.gz
        parts = urllib.parse.urlsplit(url).path.split("/")
        name = parts[parts.index("archive") - 1] if "archive" in parts else filename
        filename = f"{name}-{version}.{match['ext']}" if match else filename
    sha256, size = net.hash_url(url)
    if declared is not None and declared != sha256:
        raise ArtifactError(f"{net.redact(url)}: sha256 {sha256} is not the {declared} the role declares ({needed_by})")
    return Artifact(
        Kind.installer,
        name,
        version,
        "all",
        net.redact(url),
        sha256=sha256,
        size=size,
        path=f"files/{filename}",
        provenance=((needed_by, resolved_at),),
    )


def _lock_charts(stack: StackConfig, lock: Lock, sources: Sources, say: Progress) -> None:

    for need in charts.chart_needs(stack.platform):
        resolved_at = _now()
        source = CHARTS[need.key]
        repository = sources.chart_repositories.get(need.key) or source.repository
        if repository is None:
            reference = parse_reference(f"{source.chart}:{need.version}")
            try:
                digest, size, _ = registry.manifest(reference)
            except InputError as error:
                raise _at(error, need.needed_by.split("(")[-1].rstrip(")"), stack) from None
            lock.add(
                Artifact(
                    Kind.chart,
                    source.chart,
                    need.version,
                    "all",
                    source.chart,
                    digest=digest,
                    size=size,
                    path=f"oci/{reference.repository}",
                    provenance=((need.needed_by, resolved_at),),
                )
            )
        else:
            try:
                name, url, sha256, entry = charts.lookup(need.key, need.version, repository)
            except InputError as error:
                raise _at(error, need.needed_by.split("(")[-1].rstrip(")"), stack) from None
            lock.add(
                Artifact(
                    Kind.chart,
                    name,
                    need.version,
                    "all",
                    net.redact(url),
                    sha256=sha256,
                    path=f"charts/{name}-{need.version}.tgz",
                    provenance=((need.needed_by, resolved_at),),
                    meta={"index_entry": _plain(entry)},
                )
            )
        say(f"chart {source.chart} {need.version}")


def _plain(value: Any) -> Any:
    """An index.yaml entry as JSON data (YAML dates become strings)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def _images(value: Any, path: str) -> list[tuple[str, str]]:
    """Every image reference by digest anywhere in the declaration, with its field path."""
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _images(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _images(item, f"{path}[{index}]")
    elif isinstance(value, str) and "@sha256:" in value and _IMAGE.match(value):
        found.append((value, path))
    return found


def _lock_images(stack: StackConfig, lock: Lock, say: Progress) -> None:

    for text, where in _images(stack.platform.model_dump(mode="json"), ""):
        reference = parse_reference(text)
        try:
            digest, size, media_type = registry.manifest(reference)
        except InputError as error:  # unreachable, refused, another digest: at the line that names the image
            raise _at(error, where, stack) from None
        lock.add(
            Artifact(
                Kind.image,
                reference.name,
                reference.tag or "",
                "all",
                text,
                digest=digest,
                size=size,
                path=f"oci/{reference.repository}",
                provenance=((where, _now()),),
                meta={"media_type": media_type},
            )
        )
        say(f"image {reference.name}@{digest}")


def _lock_cloud_images(stack: StackConfig, lock: Lock) -> None:
    """The machine images the stack's pools pin, as their cloud resolves them (never downloaded)."""
    images = cloud_images(stack.platform.cloud)
    for image in images.node_images(stack.platform) if images else []:
        lock.add(
            Artifact(
                Kind.cloud_image,
                image.pool,
                image.version,
                image.architecture,
                image.reference,
                provenance=((image.declared_at, _now()),),
                meta=dict(image.meta),
            )
        )
