"""The `matrix check` input: a flat mapping of the keys in docs/design.md, parsed and validated.

Every key is optional except `accelerator`; an unknown key, a malformed version or an unknown
accelerator is an `InputError` naming the origin, the line (when the caller knows it) and the key.

Values must be strings. YAML turns `python: 3.10` into the float 3.1 and `cuda: 12.10` into 12.1,
so a number would be checked as the wrong version without anyone noticing; numbers (and booleans)
are refused with a message that says to quote them. The one exception is `as_of`, where a YAML
date (`2026-01-31` unquoted) is accepted as well as the string.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelplane.errors import InputError, Problem
from accelplane.matrix.keys import MATRIX_KEYS, VERSION_KEYS
from accelplane.matrix.loader import accelerators, load
from accelplane.matrix.schema import AcceleratorFacts, KernelModule, Vendor
from accelplane.matrix.versions import Version, VersionError, parse_version
from accelplane.suggest import did_you_mean

"""Exactly the flat keys of the `matrix check` contract (docs/design.md)."""

# Keys that only mean something on one vendor's accelerators.
VENDOR_KEYS: Mapping[str, frozenset[str]] = {
    "nvidia": frozenset(
        {"driver", "kernel_module", "fabric_manager", "cuda", "compat_package", "cudnn", "nccl_package"}
    ),
    "amd": frozenset({"rocm", "rocm_userspace", "amdgpu_kmd", "gpu_target"}),
    Vendor.NEURON: frozenset({"neuron_sdk", "torch_neuronx", "torch_neuron"}),
    "google": frozenset({"libtpu", "tpu_runtime"}),
    "intel": frozenset({"gaudi_sw"}),
    "huawei": frozenset({"cann", "torch_npu"}),
}

_OS_RE = re.compile(r"^(?P<distro>[a-z][a-z-]*?)-?(?P<version>\d+(?:\.\d+)*)$")
# Spellings people use for the same distribution -> the name the data files use.
_DISTRO_ALIASES = {
    "amazon-linux": "amazonlinux",
    "al": "amazonlinux",
    "amzn": "amazonlinux",
    "redhat": "rhel",
    "red-hat": "rhel",
    "rocky-linux": "rocky",
    "rockylinux": "rocky",
    "oracle-linux": "oraclelinux",
    "ol": "oraclelinux",
    "azure-linux": "azurelinux",
    "sles-sp": "sles",
}
_COMPAT_RE = re.compile(r"^(?:cuda-compat-)?(?P<major>\d+)[-.](?P<minor>\d+)(?:[=:].*)?$")
_NCCL_PIP_RE = re.compile(r"^nvidia-nccl-cu(?P<major>\d+)(?:==(?P<version>[0-9][0-9.]*))?$")
_NCCL_APT_RE = re.compile(
    r"^libnccl(?:2|-dev)=(?P<version>[0-9][0-9.]*)-\d+\+cuda(?P<major>\d+)\.(?P<minor>\d+)$"
)
_NCCL_CUDA_RE = re.compile(r"^cuda(?P<major>\d+)(?:\.(?P<minor>\d+))?$")
_GFX_RE = re.compile(r"^gfx[0-9a-f]+$")


@dataclass(frozen=True)
class OsName:
    """`ubuntu-22.04` parsed: distribution and version (point releases allowed: ubuntu-22.04.5)."""

    distro: str
    version: Version
    text: str

    @staticmethod
    def parse(text: str) -> OsName:
        """`ubuntu-22.04`, `rhel-9.4`, `amazon-linux-2023` / `al2023` (aliases map to one name)."""
        match = _OS_RE.match(text.strip().lower())
        if match is None:
            raise ValueError(
                f"malformed os {text!r} (expected <distro>-<version>, e.g. ubuntu-22.04, rhel-9.4 or "
                "amazonlinux-2023)"
            )
        distro = _DISTRO_ALIASES.get(match["distro"].rstrip("-"), match["distro"].rstrip("-"))
        return OsName(distro, parse_version(match["version"]), f"{distro}-{match['version']}")

    def matches(self, listed: str) -> bool:
        """Same distribution and the versions agree to the precision both give (22.04 ~ 22.04.5)."""
        other = OsName.parse(listed)
        if other.distro != self.distro:
            return False
        return self.version.has_prefix(other.version) or other.version.has_prefix(self.version)

    def same_release(self, listed: str) -> bool:
        """Same distribution and same major.minor (ubuntu-22.04.3 and ubuntu-22.04.5)."""
        other = OsName.parse(listed)
        return other.distro == self.distro and other.version.same_series(
            self.version, 2 if self.distro == "ubuntu" else 1
        )

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class NcclPackageSpec:
    """`nccl_package`: which CUDA build of NCCL is installed (pip `nvidia-nccl-cu12`, apt
    `libnccl2=2.21.5-1+cuda12.4`, or plain `cuda12.4`)."""

    text: str
    cuda_major: int
    cuda: Version | None = None
    nccl: Version | None = None

    @staticmethod
    def parse(text: str) -> NcclPackageSpec:
        value = text.strip()
        if match := _NCCL_PIP_RE.match(value):
            version = parse_version(match["version"]) if match["version"] else None
            return NcclPackageSpec(value, int(match["major"]), None, version)
        if match := _NCCL_APT_RE.match(value):
            cuda = parse_version(f"{match['major']}.{match['minor']}")
            return NcclPackageSpec(value, int(match["major"]), cuda, parse_version(match["version"]))
        if match := _NCCL_CUDA_RE.match(value):
            cuda = parse_version(f"{match['major']}.{match['minor']}") if match["minor"] else None
            return NcclPackageSpec(value, int(match["major"]), cuda, None)
        raise ValueError(
            f"malformed nccl_package {text!r} (expected nvidia-nccl-cu12[==2.21.5], "
            "libnccl2=2.21.5-1+cuda12.4 or cuda12.4)"
        )


@dataclass(frozen=True)
class Stack:
    """A validated software stack. `versions` holds every version key that was given, parsed."""

    raw: Mapping[str, str]
    accelerator: AcceleratorFacts
    versions: Mapping[str, Version]
    instance: str | None = None
    os: OsName | None = None
    kernel_module: KernelModule | None = None
    compat_package: Version | None = None
    nccl_package: NcclPackageSpec | None = None
    gpu_target: str | None = None
    tpu_runtime: str | None = None
    as_of: dt.date | None = None
    lines: Mapping[str, int] = field(default_factory=dict)

    def v(self, key: str) -> Version | None:
        return self.versions.get(key)

    @property
    def vendor(self) -> str:
        return self.accelerator.vendor.value


# Reports one problem: (matrix key or None, message).
_Report = Callable[[str | None, str], None]


def parse_stack(
    stack: Mapping[str, object], *, origin: str = "<input>", lines: Mapping[str, int] | None = None
) -> Stack:
    """Validate the mapping and parse every value; all problems are reported together."""
    lines = dict(lines or {})
    problems: list[Problem] = []

    def problem(key: str | None, message: str) -> None:
        problems.append(
            Problem(file=origin, line=lines.get(key) if key else None, field=key, message=message)
        )

    if not isinstance(stack, Mapping):
        raise InputError.single(f"expected a mapping of matrix keys, got {type(stack).__name__}", file=origin)
    raw, as_of = _raw_values(stack, problem)
    accelerator = _accelerator(raw, problem, missing_reported=any(p.field == "accelerator" for p in problems))
    versions: dict[str, Version] = {}
    for key in sorted(VERSION_KEYS & raw.keys()):
        try:
            versions[key] = parse_version(raw[key])
        except VersionError as error:
            problem(key, str(error))
    parsed: dict[str, object] = {}
    for key, parser in _PARSERS.items():
        if key in raw and (value := parser(raw[key], problem)) is not None:
            parsed[key] = value
    if "as_of" in raw and as_of is None:
        try:
            as_of = dt.date.fromisoformat(raw["as_of"])
        except ValueError:
            problem("as_of", f"malformed date {raw['as_of']!r} (expected YYYY-MM-DD)")
    if "python" in versions and versions["python"].major != 3:
        problem("python", f'python {raw["python"]} is not a CPython 3 version (expected e.g. "3.11")')

    if problems:
        raise InputError(problems)
    assert accelerator is not None
    return Stack(
        raw=raw,
        accelerator=accelerator,
        versions=versions,
        as_of=as_of,
        lines=lines,
        **parsed,  # type: ignore[arg-type]
    )


def _raw_values(stack: Mapping[Any, object], problem: _Report) -> tuple[dict[str, str], dt.date | None]:
    """Known keys with non-empty string values (a YAML date for `as_of`); every other entry a problem."""
    raw: dict[str, str] = {}
    as_of: dt.date | None = None
    for key, value in stack.items():
        if not isinstance(key, str) or key not in MATRIX_KEYS:
            problem(
                str(key),
                f"unknown key{did_you_mean(str(key), MATRIX_KEYS)} (allowed: {', '.join(sorted(MATRIX_KEYS))})",
            )
            continue
        if key == "as_of" and isinstance(value, dt.date):
            as_of = value if not isinstance(value, dt.datetime) else value.date()
            raw[key] = as_of.isoformat()
            continue
        if value is None or (isinstance(value, str) and not value.strip()):
            problem(key, "empty value (remove the key or give a value)")
            continue
        if isinstance(value, bool) or not isinstance(value, str):
            shown = repr(value)
            problem(
                key,
                f"expected a string, got {type(value).__name__} {shown}; quote it (YAML reads 3.10 as the "
                'number 3.1, so versions must be written as strings, e.g. "3.10")',
            )
            continue
        raw[key] = value.strip()
    return raw, as_of


def _accelerator(raw: Mapping[str, str], problem: _Report, *, missing_reported: bool) -> AcceleratorFacts | None:
    vocabulary = accelerators()
    if "accelerator" not in raw:
        if not missing_reported:
            problem("accelerator", "missing: every stack names its accelerator (e.g. nvidia-h100)")
        return None
    name = raw["accelerator"].lower()
    accelerator = vocabulary.get(name)
    if accelerator is None:
        problem(
            "accelerator",
            f"unknown accelerator {raw['accelerator']!r}{did_you_mean(name, list(vocabulary))} "
            f"(known: {', '.join(sorted(vocabulary))})",
        )
    return accelerator


def _os(text: str, problem: _Report) -> OsName | None:
    try:
        os_name = OsName.parse(text)
    except (ValueError, VersionError) as error:
        problem("os", str(error))
        return None
    distros = load().os.distros
    if os_name.distro not in distros:
        problem("os", f"unknown distribution {os_name.distro!r} in {text!r} (known: {', '.join(distros)})")
    return os_name


def _kernel_module(text: str, problem: _Report) -> KernelModule | None:
    try:
        return KernelModule(text.lower())
    except ValueError:
        problem("kernel_module", f"expected open or proprietary, got {text!r}")
        return None


def _compat_package(text: str, problem: _Report) -> Version | None:
    match = _COMPAT_RE.match(text)
    if match is None:
        problem("compat_package", f"malformed compat_package {text!r} (expected cuda-compat-12-4 or 12.4)")
        return None
    try:
        return parse_version(f"{match['major']}.{match['minor']}")
    except VersionError as error:  # e.g. a major version of a hundred digits
        problem("compat_package", str(error))
        return None


def _nccl_package(text: str, problem: _Report) -> NcclPackageSpec | None:
    try:
        return NcclPackageSpec.parse(text)
    except (ValueError, VersionError) as error:
        problem("nccl_package", str(error))
        return None


def _gpu_target(text: str, problem: _Report) -> str | None:
    if not _GFX_RE.match(text.lower()):
        problem("gpu_target", f"malformed gpu_target {text!r} (expected an LLVM target such as gfx942)")
        return None
    return text.lower()


def _verbatim(text: str, _problem: _Report) -> str:
    return text


# Matrix keys whose value is not a version: key -> parser (None after reporting a problem).
_PARSERS: dict[str, Callable[[str, _Report], object | None]] = {
    "os": _os,
    "kernel_module": _kernel_module,
    "compat_package": _compat_package,
    "nccl_package": _nccl_package,
    "gpu_target": _gpu_target,
    "tpu_runtime": _verbatim,
    "instance": _verbatim,
}
