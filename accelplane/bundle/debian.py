"""Debian repository metadata: Packages indexes, dpkg version order, relations, and the closure of
a pinned set's dependencies as apt resolves it (the highest candidate allowed by every constraint).

What apt does that this does not: Conflicts/Breaks and backtracking. A pinned set of a vendor's
repository is a consistent set by construction (every member `= version`), so the first choice is
apt's choice; a dependency no declared repository carries is reported, not guessed (it comes from
the OS archive the nodes already use, and the lock lists it under `outside`).
"""

from __future__ import annotations

import fnmatch
import gzip
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from accelplane.ansible_module_utils.debian_packages import Relation, compare_versions, parse_relations, satisfies
from accelplane.errors import InputError

__all__ = ["Package", "Relation", "Resolver", "compare_versions", "parse_packages", "parse_relations",
           "release_checksums", "satisfies"]

@dataclass(frozen=True)
class Package:
    """One stanza of a Packages index, with the repository it came from."""

    name: str
    version: str
    architecture: str
    filename: str
    size: int
    sha256: str
    repository: str  # the declared repository's name
    base_url: str  # where `filename` is relative to
    fields: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/" + self.filename.removeprefix("./")

    def relations(self, key: str) -> list[list[Relation]]:
        return parse_relations(self.fields.get(key, ""))

    @property
    def provides(self) -> list[Relation]:
        return [alternatives[0] for alternatives in self.relations("Provides")]


def parse_stanzas(text: str) -> Iterator[dict[str, str]]:
    """deb822 stanzas: `Key: value` with continuation lines, blank-line separated."""
    stanza: dict[str, str] = {}
    key = None
    for line in text.splitlines():
        if not line.strip():
            if stanza:
                yield stanza
            stanza, key = {}, None
        elif line[0] in " \t" and key is not None:
            stanza[key] += "\n" + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            stanza[key] = value.strip()
    if stanza:
        yield stanza


def parse_packages(data: bytes, *, repository: str, base_url: str, source: str) -> list[Package]:
    """A Packages or Packages.gz index; `source` names it in errors."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    packages = []
    for index, stanza in enumerate(parse_stanzas(data.decode("utf-8", "replace"))):
        missing = [
            key for key in ("Package", "Version", "Architecture", "Filename", "Size", "SHA256") if key not in stanza
        ]
        if missing:
            raise InputError.single(
                f"stanza {index + 1} ({stanza.get('Package', '?')}) lacks {', '.join(missing)}", file=source
            )
        packages.append(
            Package(
                stanza["Package"],
                stanza["Version"],
                stanza["Architecture"],
                stanza["Filename"],
                int(stanza["Size"]),
                stanza["SHA256"],
                repository,
                base_url,
                stanza,
            )
        )
    return packages


def release_checksums(text: str) -> dict[str, tuple[str, int]]:
    """path -> (sha256, size) from a Release file's SHA256 field."""
    for stanza in parse_stanzas(text):
        lines = stanza.get("SHA256", "").splitlines()
        return {parts[2]: (parts[0], int(parts[1])) for parts in (line.split() for line in lines) if len(parts) == 3}
    return {}


class Resolver:
    """Candidates of the declared repositories for one architecture, and apt's choice among them."""

    def __init__(self, packages: Iterable[Package], architecture: str):
        self.architecture = architecture
        self.by_name: dict[str, list[Package]] = {}
        self.providers: dict[str, list[tuple[Package, str | None]]] = {}  # virtual name -> (provider, its version)
        for package in packages:
            if package.architecture not in (architecture, "all"):
                continue
            self.by_name.setdefault(package.name, []).append(package)
            for provided in package.provides:
                self.providers.setdefault(provided.name, []).append((package, provided.version))
        for candidates in self.by_name.values():
            candidates.sort(key=_VersionKey, reverse=True)

    def pinned(self, name: str, pattern: str) -> Package | None:
        """The highest version of `name` matching an apt pin pattern (`570.172.08-*`), as a
        `Pin: version` preference of priority 1000 makes apt choose."""
        for candidate in self.by_name.get(name, []):
            if fnmatch.fnmatchcase(candidate.version, pattern):
                return candidate
        return None

    def choose(self, relation: Relation, chosen: dict[str, Package]) -> Package | None:
        """What satisfies `relation`: an already chosen package first, then the highest candidate."""
        if relation.name in chosen and satisfies(chosen[relation.name].version, relation.operator, relation.version):
            return chosen[relation.name]
        for candidate in self.by_name.get(relation.name, []):
            if satisfies(candidate.version, relation.operator, relation.version):
                return candidate
        # A virtual package: a versioned Provides meets a versioned relation, an unversioned one only an
        # unversioned relation (Debian policy 7.5); a provider already chosen first.
        providers = [package for package, provided in self.providers.get(relation.name, [])
                     if satisfies(provided, relation.operator, relation.version)]
        return next((chosen[p.name] for p in providers if p.name in chosen), providers[0] if providers else None)

    def closure(self, roots: list[Package]) -> tuple[list[Package], list[tuple[str, str]]]:
        """Every package `roots` pull in through Pre-Depends and Depends; and the relations no
        declared repository satisfies, as (relation, the package that needs it)."""
        chosen = {package.name: package for package in roots}
        queue = list(roots)
        outside: list[tuple[str, str]] = []
        while queue:
            package = queue.pop(0)
            for key in ("Pre-Depends", "Depends"):
                for alternatives in package.relations(key):
                    picked = None
                    for relation in alternatives:
                        picked = self.choose(relation, chosen)
                        if picked is not None:
                            break
                    if picked is None:
                        outside.append((" | ".join(map(str, alternatives)), f"{package.name}={package.version}"))
                    elif picked.name not in chosen:
                        chosen[picked.name] = picked
                        queue.append(picked)
        return sorted(chosen.values(), key=lambda p: p.name), outside


class _VersionKey:
    __slots__ = ("version",)

    def __init__(self, package: Package):
        self.version = package.version

    def __lt__(self, other: _VersionKey) -> bool:
        return compare_versions(self.version, other.version) < 0
