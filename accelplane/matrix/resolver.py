"""`resolve()`: the newest software profile the matrix proves fully compatible with an accelerator.

Candidates are built from the data, newest first (framework release, then its builds, then driver
or SDK), and each is run through `check()`; the first whose verdict is `compatible` (no warning,
no condition, nothing outside the matrix) is returned. The profile therefore never says more
than the data can back: a key whose value the data does not pin (an NCCL pin of a non-default
torch build, say) is left out rather than guessed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from accelplane.errors import InputError
from accelplane.matrix.checks.context import series
from accelplane.matrix.findings import Verdict
from accelplane.matrix.judge import check
from accelplane.matrix.loader import MatrixData, accelerators, load
from accelplane.matrix.schema import AcceleratorFacts, KernelModule, Vendor
from accelplane.matrix.stack import OsName
from accelplane.matrix.versions import VersionError, parse_version

_DEFAULT_FRAMEWORK = {"google": "jax"}
_SUPPORTED = {
    "nvidia": ("torch",),
    "amd": ("torch",),
    Vendor.NEURON: ("torch",),
    "google": ("jax", "torch"),
    "intel": ("torch",),
    "huawei": ("torch",),
}
_MAX_CANDIDATES = 5000


class NoProfileFoundError(LookupError):
    """No candidate built from the data is fully compatible with the request."""


def resolve(
    accelerator: str,
    framework: str | None = None,
    os: str | None = None,
    python: str | None = None,
    as_of: dt.date | None = None,
) -> dict[str, str]:
    """The newest fully compatible profile for `accelerator`, as flat matrix keys.

    Raises `InputError` for an unknown accelerator, framework, malformed os or python, and
    `NoProfileFoundError` when nothing in the data fits.
    """
    acc = accelerators().get(accelerator)
    if acc is None:
        raise InputError.single(
            f"unknown accelerator {accelerator!r} (known: {', '.join(sorted(accelerators()))})",
            field="accelerator",
        )
    vendor = acc.vendor.value
    chosen = framework or _DEFAULT_FRAMEWORK.get(vendor, "torch")
    if chosen not in _SUPPORTED[vendor]:
        raise InputError.single(
            f"framework {chosen!r} is not in the matrix for {accelerator} (supported: "
            f"{', '.join(_SUPPORTED[vendor])})",
            field="framework",
        )
    if os is not None:
        try:
            OsName.parse(os)
        except (ValueError, VersionError) as error:
            raise InputError.single(str(error), field="os") from None
    if python is not None:
        try:
            parsed = parse_version(python)
        except VersionError as error:
            raise InputError.single(str(error), field="python") from None
        python = series(parsed)
    when = as_of or dt.date.today()
    data = load()
    generators = {
        "nvidia": _nvidia,
        "amd": _amd,
        Vendor.NEURON: _neuron,
        "google": _tpu_jax if chosen == "jax" else _tpu_torch,
        "intel": _gaudi,
        "huawei": _ascend,
    }
    for tried, candidate in enumerate(generators[vendor](data, acc, os, python, when)):
        if tried >= _MAX_CANDIDATES:
            break
        profile = {"accelerator": acc.name, **{k: v for k, v in candidate.items() if v is not None}}
        report = check(profile, as_of=when, origin="resolve")
        if report.verdict is Verdict.COMPATIBLE:
            return profile
    wanted = ", ".join(f"{k} {v}" for k, v in (("framework", chosen), ("os", os), ("python", python)) if v)
    raise NoProfileFoundError(
        f"no fully compatible profile in the matrix for {accelerator} ({wanted}) as of {when}"
    )


# ---- candidate generators (newest first) -----------------------------------------------------------
def _pythons(listed: tuple[str, ...] | list[str], python: str | None) -> list[str]:
    if python is not None:
        return [python] if python in listed else []
    return sorted(listed, key=parse_version, reverse=True)


def _driver_order(data: MatrixData, when: dt.date) -> list[str]:
    """Table-3 drivers, newest first, but branches with a sourced support window that is still open
    come before branches whose end of life the data does not know."""

    def known_and_open(driver: str) -> bool:
        record = data.branches.get(parse_version(driver).major)
        return record is not None and record.eol_date is not None and when < record.eol_date

    drivers = {row.driver for row in data.nvidia.cuda_driver}
    return sorted(drivers, key=lambda d: (known_and_open(d), parse_version(d)), reverse=True)


def _nvidia(
    data: MatrixData, acc: AcceleratorFacts, os: str | None, python: str | None, when: dt.date
) -> Iterator[dict[str, str | None]]:
    drivers = _driver_order(data, when)
    module = KernelModule.OPEN if KernelModule.OPEN in acc.kernel_modules else KernelModule.PROPRIETARY
    for rel in reversed(data.pytorch.releases):
        others = sorted((v for v in rel.cuda_variants if v != rel.pypi_cuda), key=parse_version, reverse=True)
        variants = [rel.pypi_cuda, *others]
        for py in _pythons(rel.python, python):
            for variant in variants:
                rows = [r for c, _, r in data.cuda_rows if c.same_series(parse_version(variant), 2)]
                if not rows:
                    continue
                row = rows[-1]
                default = variant == rel.pypi_cuda
                torch = rel.torch if default else f"{rel.torch}+cu{variant.replace('.', '')}"
                cuda_major = parse_version(variant).major
                for driver in drivers:
                    if parse_version(driver) < parse_version(row.driver):
                        continue
                    yield {
                        "os": os,
                        "python": py,
                        "driver": driver,
                        "kernel_module": module.value,
                        "fabric_manager": driver if acc.nvswitch else None,
                        "cuda": row.cuda,
                        "cudnn": rel.cudnn if default else None,
                        "nccl": rel.nccl if default else None,
                        "nccl_package": f"nvidia-nccl-cu{cuda_major}" if default and rel.nccl else None,
                        "torch": torch,
                        "torchvision": rel.torchvision[-1] if rel.torchvision else None,
                        "torchaudio": rel.torchaudio[-1] if rel.torchaudio else None,
                    }


def _amd(
    data: MatrixData, acc: AcceleratorFacts, os: str | None, python: str | None, when: dt.date
) -> Iterator[dict[str, str | None]]:
    for rocm in reversed(data.rocm.releases):
        if acc.gfx_target not in rocm.gpu_targets:
            continue
        systems = [os] if os is not None else list(rocm.os[:1])
        line = parse_version(series(parse_version(rocm.rocm)))
        for rel in reversed(data.pytorch.releases):
            variant = next((v for v in rel.rocm_variants if parse_version(v).has_prefix(line)), None)
            if variant is None:
                continue
            for py in _pythons(rel.python, python):
                for system in systems:
                    yield {
                        "os": system,
                        "python": py,
                        "rocm": rocm.rocm,
                        "torch": f"{rel.torch}+rocm{variant}",
                        "torchvision": rel.torchvision[-1] if rel.torchvision else None,
                    }


def _neuron(
    data: MatrixData, acc: AcceleratorFacts, os: str | None, python: str | None, when: dt.date
) -> Iterator[dict[str, str | None]]:
    for release in reversed(data.neuron.releases):
        if acc.neuron_platform not in release.instances:
            continue
        # Inferentia1 runs the torch-neuron 1.x line; every later device torch-neuronx.
        key = "torch_neuron" if acc.neuron_platform == "inf1" else "torch_neuronx"
        packages = sorted(
            (p for p in getattr(release, key) if p.match == "exact" and acc.neuron_platform in p.instances),
            key=lambda p: parse_version(p.version),
            reverse=True,
        )
        for package in packages:
            for py in _pythons(package.python or (), python):
                yield {
                    "os": os,
                    "python": py,
                    "neuron_sdk": release.sdk,
                    key: package.version,
                    "torch": str(parse_version(package.version).truncate(3)),
                }


def _tpu_jax(
    data: MatrixData, acc: AcceleratorFacts, os: str | None, python: str | None, when: dt.date
) -> Iterator[dict[str, str | None]]:
    for record in reversed(data.tpu.jax):
        py = python or record.python_min
        yield {
            "os": os,
            "python": py,
            "jax": record.jax,
            "jaxlib": record.jaxlib_max,
            "libtpu": record.libtpu,
            "tpu_runtime": acc.tpu_runtime,
        }


def _tpu_torch(
    data: MatrixData, acc: AcceleratorFacts, os: str | None, python: str | None, when: dt.date
) -> Iterator[dict[str, str | None]]:
    for record in reversed(data.tpu.torch_xla):
        version = record.torch_xla if record.match == "exact" else f"{record.torch_xla}.0"
        for py in _pythons(record.python, python):
            yield {
                "os": os,
                "python": py,
                "torch": f"{series(parse_version(version))}.0",
                "torch_xla": version,
                "libtpu": record.libtpu,
                "tpu_runtime": acc.tpu_runtime,
            }


def _gaudi(
    data: MatrixData, acc: AcceleratorFacts, os: str | None, python: str | None, when: dt.date
) -> Iterator[dict[str, str | None]]:
    for release in reversed(data.gaudi.releases):
        if not release.devices or acc.gaudi_device not in release.devices or not release.os:
            continue
        entries = [e for e in reversed(release.os) if os is None or OsName.parse(os).matches(e.os)]
        for entry in entries:
            pythons = _pythons(entry.python, python) if entry.python else [python]
            for py in pythons:
                yield {
                    "os": os or entry.os,
                    "python": py,
                    "gaudi_sw": release.gaudi_sw if release.match == "exact" else f"{release.gaudi_sw}.0",
                    "torch": release.torch,
                }


def _ascend(
    data: MatrixData, acc: AcceleratorFacts, os: str | None, python: str | None, when: dt.date
) -> Iterator[dict[str, str | None]]:
    for release in reversed(data.ascend.cann):
        for npu in sorted(release.torch_npu, key=parse_version, reverse=True):
            base = parse_version(npu).truncate(3)
            record = next(
                (r for r in data.ascend.python if any(parse_version(t) == base for t in r.torch)), None
            )
            if record is None:
                continue
            for py in _pythons(record.python, python):
                yield {"os": os, "python": py, "cann": release.cann, "torch_npu": npu, "torch": str(base)}
