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
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from accelplane.errors import InputError

_PART = re.compile(r"(\d+|\D+)")


def _order(char: str) -> int:
    # dpkg's lexical order: '~' before everything (even the end), letters before non-letters.
    if char == "~":
        return -1
    if char.isalpha():
        return ord(char)
    return ord(char) + 256


def _compare_fragment(left: str, right: str) -> int:
    """dpkg's verrevcmp over one upstream version or revision."""
    i = j = 0
    while i < len(left) or j < len(right):
        first_diff = 0
        while (i < len(left) and not left[i].isdigit()) or (j < len(right) and not right[j].isdigit()):
            a = _order(left[i]) if i < len(left) and not left[i].isdigit() else 0
            b = _order(right[j]) if j < len(right) and not right[j].isdigit() else 0
            if a != b:
                return -1 if a < b else 1
            i += 1
            j += 1
        while i < len(left) and left[i] == "0":
            i += 1
        while j < len(right) and right[j] == "0":
            j += 1
        while i < len(left) and left[i].isdigit() and j < len(right) and right[j].isdigit():
            if not first_diff:
                first_diff = (left[i] > right[j]) - (left[i] < right[j])
            i += 1
            j += 1
        if i < len(left) and left[i].isdigit():
            return 1
        if j < len(right) and right[j].isdigit():
            return -1
        if first_diff:
            return first_diff
    return 0


def _split(version: str) -> tuple[int, str, str]:
    epoch, _, rest = version.rpartition(":") if ":" in version else ("0", "", version)
    upstream, _, revision = rest.rpartition("-") if "-" in rest else (rest, "", "")
    return int(epoch or 0), upstream, revision


def compare_versions(left: str, right: str) -> int:
    """-1, 0 or 1 as dpkg --compare-versions orders `left` and `right`."""
    le, lu, lr = _split(left)
    re_, ru, rr = _split(right)
    if le != re_:
        return -1 if le < re_ else 1
    return _compare_fragment(lu, ru) or _compare_fragment(lr, rr)


def satisfies(version: str, operator: str | None, wanted: str | None) -> bool:
    if operator is None or wanted is None:
        return True
    order = compare_versions(version, wanted)
    return {
        "=": order == 0,
        ">=": order >= 0,
        "<=": order <= 0,
        ">>": order > 0,
        "<<": order < 0,
        ">": order >= 0,  # obsolete spellings dpkg still reads as >= and <=
        "<": order <= 0,
    }[operator]


@dataclass(frozen=True)
class Relation:
    name: str
    operator: str | None = None
    version: str | None = None
    arch: str | None = None

    def __str__(self) -> str:
        return f"{self.name} ({self.operator} {self.version})" if self.operator else self.name


_RELATION = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9.+-]*)(?::(?P<arch>[a-z0-9-]+))?"
    r"\s*(\(\s*(?P<op><<|<=|=|>=|>>|<|>)\s*(?P<version>[^)\s]+)\s*\))?\s*(\[[^]]*\])?\s*(<[^>]*>\s*)*$"
)


def parse_relations(text: str) -> list[list[Relation]]:
    """`a (>= 1) | b, c` -> [[a>=1, b], [c]] (an AND of ORs)."""
    clauses = []
    for clause in text.split(","):
        if not clause.strip():
            continue
        alternatives = []
        for part in clause.split("|"):
            match = _RELATION.match(part.strip())
            if match is None:
                raise ValueError(f"cannot read the relation {part.strip()!r}")
            arch = match["arch"]
            alternatives.append(Relation(match["name"], match["op"], match["version"], None if arch == "any" else arch))
        clauses.append(alternatives)
    return clauses


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
        self.providers: dict[str, list[Package]] = {}
        for package in packages:
            if package.architecture not in (architecture, "all"):
                continue
            self.by_name.setdefault(package.name, []).append(package)
            for provided in package.provides:
                self.providers.setdefault(provided.name, []).append(package)
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
        if relation.operator is None:  # a virtual package satisfies only unversioned relations here
            for provider in self.providers.get(relation.name, []):
                if provider.name in chosen:
                    return chosen[provider.name]
            providers = self.providers.get(relation.name, [])
            if providers:
                return providers[0]
        return None

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
