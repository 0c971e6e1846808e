"""Read PyPI's JSON API documents a user downloaded and propose matrix data from them.

Two documents of https://docs.pypi.org/api/json/:
- a project (`https://pypi.org/pypi/<project>/json`): `releases` maps every version to its files.
  For a package `published.yaml` lists, the proposal is its release list: versions with at least one
  file pip would install on Linux x86_64 (a manylinux x86_64 wheel, a pure-Python wheel, or an
  sdist), yanked files left out as pip leaves them out.
- a release (`https://pypi.org/pypi/torch/<version>/json`): `info.requires_dist` holds the wheel's
  exact pins (`nvidia-nccl-cu12==2.27.3; platform_system == "Linux" ...`) and `urls` its files. The
  proposal is the `pytorch.yaml` row's registry fields: Python versions with a Linux x86_64 wheel,
  `requires_python`, the CUDA runtime, NCCL and cuDNN pins and the glibc floor of the wheel tags.

Nothing is written here: the caller compares a proposal with the data in use and shows the change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accelplane.matrix.versions import VersionError, parse_version

# A wheel file name: name-version(-build)?-python-abi-platform.whl (PEP 427).
_WHEEL = re.compile(
    r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-(?P<python>[^-]+)-(?P<abi>[^-]+)-(?P<platform>[^-]+)\.whl$"
)
_MANYLINUX = re.compile(r"manylinux_(?P<major>\d+)_(?P<minor>\d+)_x86_64|manylinux(?P<legacy>1|2010|2014)_x86_64")
_LEGACY_GLIBC = {"1": "2.5", "2010": "2.12", "2014": "2.17"}  # PEP 513, 571, 599
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)\s*==\s*(?P<version>[0-9][0-9A-Za-z.+]*)\s*(?:;(?P<marker>.*))?$")


class PypiDocumentError(ValueError):
    """The document is not one of PyPI's JSON API documents (the message says what was expected)."""


@dataclass(frozen=True)
class TorchRegistryFacts:
    """The `pytorch.yaml` fields one torch release's PyPI document decides."""

    torch: str
    python: tuple[str, ...]
    requires_python: str
    pypi_cuda: str | None
    cuda_runtime: str | None
    nccl: str | None
    cudnn: str | None
    glibc: str | None


def _info(document: Any) -> Mapping[str, Any]:
    info = document.get("info") if isinstance(document, Mapping) else None
    if not isinstance(info, Mapping) or not all(isinstance(info.get(key), str) for key in ("name", "version")):
        raise PypiDocumentError("expected a PyPI JSON API document (an object with info.name and info.version)")
    return info


def project_name(document: Any) -> str:
    return str(_info(document)["name"]).lower().replace("_", "-")


def is_project_document(document: Any) -> bool:
    _info(document)
    return isinstance(document.get("releases"), Mapping)


def _installable_on_linux_x86_64(filename: str, packagetype: str) -> bool:
    if packagetype == "sdist":
        return True
    wheel = _WHEEL.match(filename)
    if wheel is None:
        return False
    platform = wheel.group("platform")
    return platform == "any" or any(_MANYLINUX.fullmatch(tag) for tag in platform.split("."))


def released_versions(document: Any) -> list[str]:
    """Versions of a project document that pip would install on Linux x86_64, ascending; pre-releases
    and versions the matrix cannot parse are left out."""
    if not is_project_document(document):
        raise PypiDocumentError("expected a project document (https://pypi.org/pypi/<project>/json, with `releases`)")
    out = []
    for version, files in document["releases"].items():
        if not isinstance(files, list) or re.search(r"(a|b|rc|dev)\d*", str(version)):
            continue
        if any(isinstance(f, Mapping) and not f.get("yanked")
               and _installable_on_linux_x86_64(str(f.get("filename", "")), str(f.get("packagetype", "")))
               for f in files):
            try:
                parse_version(str(version))
            except VersionError:
                continue
            out.append(str(version))
    return sorted(out, key=parse_version)


def _glibc(platform: str) -> str | None:
    floors = []
    for tag in platform.split("."):
        found = _MANYLINUX.fullmatch(tag)
        if found is None:
            continue
        floors.append(_LEGACY_GLIBC[found.group("legacy")] if found.group("legacy")
                      else f"{found.group('major')}.{found.group('minor')}")
    return min(floors, key=parse_version) if floors else None


def torch_registry_facts(document: Any) -> TorchRegistryFacts:
    """The registry facts of one torch release document (`/pypi/torch/<version>/json`)."""
    info = _info(document)
    if project_name(document) != "torch" or (is_project_document(document) and not document.get("urls")):
        raise PypiDocumentError("expected torch's release document (https://pypi.org/pypi/torch/<version>/json)")
    files: Sequence[Mapping[str, Any]] = [f for f in document.get("urls") or [] if isinstance(f, Mapping)]
    pythons: set[str] = set()
    glibcs: list[str] = []
    for file in files:
        wheel = _WHEEL.match(str(file.get("filename", "")))
        if wheel is None or file.get("yanked"):
            continue
        glibc = _glibc(wheel.group("platform"))
        tag = re.fullmatch(r"cp(\d)(\d+)", wheel.group("python"))
        if glibc is None or tag is None or wheel.group("abi").endswith("t"):  # free-threaded builds aside
            continue
        pythons.add(f"{tag.group(1)}.{tag.group(2)}")
        glibcs.append(glibc)
    pins: dict[str, str] = {}
    for requirement in info.get("requires_dist") or []:
        found = _PIN.match(str(requirement).strip())
        if found is None:
            continue
        marker = found.group("marker") or ""
        if "platform_machine" in marker and "x86_64" not in marker:
            continue
        pins[found.group("name").lower()] = found.group("version")

    def pin(prefix: str) -> str | None:
        return next((version for name, version in pins.items() if re.fullmatch(rf"{prefix}-cu\d+", name)), None)

    runtime = pin("nvidia-cuda-runtime")
    return TorchRegistryFacts(
        torch=str(info["version"]),
        python=tuple(sorted(pythons, key=parse_version)),
        requires_python=str(info.get("requires_python") or ""),
        pypi_cuda=".".join(runtime.split(".")[:2]) if runtime else None,
        cuda_runtime=runtime,
        nccl=pin("nvidia-nccl"),
        cudnn=pin("nvidia-cudnn"),
        glibc=min(glibcs, key=parse_version) if glibcs else None,
    )
