"""Read the EKS-optimised AMI release notes (amazon-eks-ami's CHANGELOG.md) into per-release facts.

Each `# AMI Release vYYYYMMDD` section holds, per Kubernetes minor, a `<details>` block with the
release version (`1.33.5-20251120`) and one or more package tables whose columns are AMI types
(`AL2023_x86_64_NVIDIA`, ...) and whose cells span columns (`colspan`) where several types ship the
same build. The accelerated AMI types' driver packages are what a node group on that release runs:
`kmod-nvidia-latest-dkms` (the NVIDIA kernel driver; the AMI installs fabric manager of the same
version), `aws-neuronx-dkms` (the Neuron driver), `nvidia-container-toolkit` and `efa`.

The file is read as a user downloaded it (`curl -LO https://raw.githubusercontent.com/awslabs/
amazon-eks-ami/main/CHANGELOG.md`); nothing here reaches the network.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

# AMI types whose nodes carry an accelerator driver and that node groups here boot (AL2023 only:
# AL2's GPU AMI ends with Kubernetes 1.32 and accelplane never declared it).
ACCELERATED_AMI_TYPES = (
    "AL2023_x86_64_NVIDIA",
    "AL2023_ARM_64_NVIDIA",
    "AL2023_x86_64_NEURON",
)
# Package name in the notes -> the fact it gives (its version without the distribution suffix).
_PACKAGES = {
    "kmod-nvidia-latest-dkms": "nvidia_driver",
    "nvidia-driver-latest-dkms": "nvidia_driver",
    "aws-neuronx-dkms": "neuron_driver",
    "nvidia-container-toolkit": "container_toolkit",
    "efa": "efa",
}
_SECTION = re.compile(r"^# AMI Release (v\d{8})\s*$", re.M)
_DETAILS = re.compile(r"<details>\s*<summary><b>Kubernetes (\d+\.\d+)</b></summary>(.*?)</details>", re.S)
_RELEASE_VERSION = re.compile(r"^\d+\.\d+\.\d+-\d{8}$")
# `580.105.08-1.amzn2023`, `2.24.7.0-dkms`, `1.18.0-1`, `12.2.2-1`: the version is before the first `-`.
_VERSION = re.compile(r"^(\d+(?:\.\d+)+)(?:-.*)?$")


class ReleaseNotesError(ValueError):
    """The file is not amazon-eks-ami's CHANGELOG.md (no release section could be read)."""


@dataclass(frozen=True)
class AmiRelease:
    """One EKS AMI release for one Kubernetes minor: what its accelerated AMI types ship."""

    release_version: str  # 1.33.5-20251120, what a managed node group pins
    tag: str  # v20251120, the release's section in the notes
    kubernetes: str  # 1.33
    # AMI type -> fact (nvidia_driver, neuron_driver, container_toolkit, efa) -> version
    ami_types: dict[str, dict[str, str]] = field(default_factory=dict)


class _Tables(HTMLParser):
    """Every table of a fragment as rows of cells, a cell spanning `colspan` columns repeated."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._span = 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self._close_row()
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
            span = dict(attrs).get("colspan") or "1"
            self._span = int(span) if span.isdigit() else 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.extend([" ".join("".join(self._cell).split())] * self._span)
            self._cell = None
        elif tag in ("tr", "table"):
            self._close_row()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def _close_row(self) -> None:
        if self._row is not None and self.tables:
            self.tables[-1].append(self._row)
        self._row = None


def _version(cell: str) -> str | None:
    found = _VERSION.match(cell.strip())
    return found.group(1) if found else None


def _kubernetes_block(tag: str, minor: str, body: str) -> AmiRelease | None:
    parser = _Tables()
    parser.feed(body)
    parser.close()
    release_version = next(
        (cell for table in parser.tables for row in table for cell in row if _RELEASE_VERSION.match(cell)), None
    )
    if release_version is None:
        return None
    ami_types: dict[str, dict[str, str]] = {}
    for table in parser.tables:
        if not table or not table[0] or table[0][0] != "Package":
            continue
        columns = table[0][1:]
        for row in table[1:]:
            if not row:
                continue
            name, cells = row[0], row[1:]
            fact = _PACKAGES.get(name)
            if fact is None:
                continue
            for ami_type, cell in zip(columns, cells, strict=False):
                version = _version(cell)
                if ami_type in ACCELERATED_AMI_TYPES and version is not None:
                    ami_types.setdefault(ami_type, {})[fact] = version
    return AmiRelease(release_version=release_version, tag=tag, kubernetes=minor, ami_types=ami_types)


def read_release_notes(text: str) -> list[AmiRelease]:
    """Every (release, Kubernetes minor) of the notes that names a release version, newest first as
    the notes list them. Raises `ReleaseNotesError` when no release section can be read."""
    sections = list(_SECTION.finditer(text))
    releases: list[AmiRelease] = []
    for index, section in enumerate(sections):
        end = sections[index + 1].start() if index + 1 < len(sections) else len(text)
        for details in _DETAILS.finditer(text, section.end(), end):
            found = _kubernetes_block(section.group(1), details.group(1), details.group(2))
            if found is not None:
                releases.append(found)
    if not releases:
        raise ReleaseNotesError(
            "no '# AMI Release vYYYYMMDD' section with a Kubernetes release table was found: expected "
            "amazon-eks-ami's CHANGELOG.md"
        )
    return releases


def iter_accelerated(releases: list[AmiRelease]) -> Iterator[AmiRelease]:
    """The releases whose notes name an accelerated AMI type's driver (the rest carry no fact)."""
    for release in releases:
        if any(facts for facts in release.ami_types.values()):
            yield release
