"""Debian package metadata as dpkg and apt read it: version order, relations, pin files, dpkg-query.

One implementation for both sides: the bundle lock reads it as `accelplane.ansible_module_utils.debian_packages`
on the controller, and the node modules (`pinned_packages`, `package_leftovers`) as
`ansible.module_utils.debian_packages` (ansible.cfg `module_utils`), where Ansible ships it to the node
inside the module's payload. So it imports nothing but the standard library and runs on the nodes'
Python.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_PART = re.compile(r"(\d+|\D+)")
_RELATION = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9.+-]*)(?::(?P<arch>[a-z0-9-]+))?"
    r"\s*(\(\s*(?P<op><<|<=|=|>=|>>|<|>)\s*(?P<version>[^)\s]+)\s*\))?\s*(\[[^]]*\])?\s*(<[^>]*>\s*)*$"
)


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
    """-1, 0 or 1 as `dpkg --compare-versions` orders `left` and `right`."""
    le, lu, lr = _split(left)
    re_, ru, rr = _split(right)
    if le != re_:
        return -1 if le < re_ else 1
    return _compare_fragment(lu, ru) or _compare_fragment(lr, rr)


def satisfies(version: str | None, operator: str | None, wanted: str | None) -> bool:
    """`version` (of a package, or of a versioned Provides) meets `operator wanted`. An unversioned
    relation takes any; an unversioned Provides (version None) meets no versioned relation (Debian
    policy 7.5)."""
    if not operator or not wanted:
        return True
    if not version:
        return False
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


class Relation(NamedTuple):
    name: str
    operator: str | None = None
    version: str | None = None
    arch: str | None = None

    def __str__(self) -> str:
        return f"{self.name} ({self.operator} {self.version})" if self.operator else self.name


def parse_relations(text: str, *, strict: bool = True) -> list[list[Relation]]:
    """`a (>= 1) | b:any, c` -> [[a>=1, b], [c]] (an AND of ORs). `strict`: an unreadable relation
    raises ValueError; otherwise it is left out (a node reads what dpkg accepted)."""
    clauses = []
    for clause in text.split(","):
        if not clause.strip():
            continue
        alternatives = []
        for part in clause.split("|"):
            match = _RELATION.match(part.strip())
            if match is None:
                if strict:
                    raise ValueError(f"cannot read the relation {part.strip()!r}")
                continue
            arch = match["arch"]
            alternatives.append(Relation(match["name"], match["op"], match["version"], None if arch == "any" else arch))
        if alternatives:
            clauses.append(alternatives)
    return clauses


def pin_patterns(text: str) -> dict[str, str]:
    """An apt preferences (pin) file -> {package: version pattern} of its `Pin: version` stanzas;
    a package of a stanza without one maps to ""."""
    pins: dict[str, str] = {}
    packages: list[str] = []
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Package":
            packages = value.split()
            for package in packages:
                pins.setdefault(package, "")
        elif key.strip() == "Pin" and value.strip().startswith("version "):
            for package in packages:
                pins[package] = value.strip()[len("version "):]
    return pins


def dpkg_records(lines: list[str], fields: tuple[str, ...]) -> list[dict[str, str]]:
    """`dpkg-query -W -f` output with `fields` tab-separated, one package a line -> one record each
    (lines with fewer fields are skipped)."""
    records = []
    for line in lines:
        values = line.split("\t")
        if len(values) >= len(fields):
            records.append(dict(zip(fields, values[: len(fields)], strict=True)))
    return records


def is_installed(status_abbrev: str) -> bool:
    """`${db:Status-Abbrev}`: the second letter is the state; n (not installed), c (config files only)
    and nothing mean not installed."""
    return status_abbrev[1:2] not in ("n", "c", "")
