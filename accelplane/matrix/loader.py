"""Load the matrix data files once, validate them, and hand out frozen fact objects.

The files live in `accelplane/matrix/data/*.yaml`. Each file has a pydantic model (see `model.py`
and `facts.py`); top-level keys starting with `x-` are YAML anchor holders and are dropped before
validation. Loading happens on first use and is cached for the life of the process, so checking
many profiles costs one load.

A data problem is a defect in accelplane, not in the user's input: it raises `MatrixDataError`
naming the file and the field path, and the test suite loads every file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from accelplane.matrix import facts as f
from accelplane.matrix.schema import AcceleratorFacts, Segment
from accelplane.matrix.versions import Version, parse_version

DATA_PACKAGE = "accelplane.matrix.data"


class MatrixDataError(RuntimeError):
    """A matrix data file is missing, malformed, unsourced or unsorted."""


def _loader() -> type[yaml.SafeLoader]:
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def read_data_file(name: str, package: str = DATA_PACKAGE) -> dict[str, Any]:
    """The raw mapping of `data/<name>` (or of `name` in another package's folder: a cloud's own facts),
    with `x-` keys removed."""
    try:
        text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MatrixDataError(f"matrix data file {name} is missing from {package}") from None
    raw = yaml.load(text, Loader=_loader())
    if not isinstance(raw, dict):
        raise MatrixDataError(f"{name}: expected a mapping at the top level")
    return {key: value for key, value in raw.items() if not str(key).startswith("x-")}


def validate_file[M: BaseModel](name: str, model: type[M], package: str = DATA_PACKAGE) -> M:
    """Validate `data/<name>` (or `name` in `package`) against `model`; errors name the file and the field
    path."""
    raw = read_data_file(name, package)
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        lines = []
        for problem in error.errors():
            path = ".".join(str(part) for part in problem["loc"])
            lines.append(f"{name}: {path}: {problem['msg']}")
        raise MatrixDataError("\n".join(lines)) from None


class _AcceleratorsFile(BaseModel):
    model_config = {"extra": "forbid", "frozen": True}
    accelerators: tuple[AcceleratorFacts, ...]


@cache
def accelerators() -> Mapping[str, AcceleratorFacts]:
    """The closed accelerator vocabulary, keyed by name (`nvidia-h100`, `amd-mi300x`, ...)."""
    data = validate_file("accelerators.yaml", _AcceleratorsFile)
    table: dict[str, AcceleratorFacts] = {}
    for facts in data.accelerators:
        if facts.name in table:
            raise MatrixDataError(f"accelerators.yaml: accelerator {facts.name} is listed twice")
        if not facts.name.startswith(f"{facts.vendor.value}-"):
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: name must start with {facts.vendor.value}-"
            )
        if facts.instance_types and not facts.instance_types_source:
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: instance_types without instance_types_source"
            )
        if facts.gce_machine_types and not facts.gce_machine_types_source:
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: gce_machine_types without gce_machine_types_source"
            )
        if facts.kernel_modules and not facts.kernel_modules_source:
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: kernel_modules without kernel_modules_source"
            )
        if facts.vendor.value == "nvidia" and (
            facts.compute_capability is None or not facts.kernel_modules or facts.segment is None
        ):
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: NVIDIA entries need compute_capability, kernel_modules "
                "and segment"
            )
        if facts.vendor.value == "amd" and facts.gfx_target is None:
            raise MatrixDataError(f"accelerators.yaml: {facts.name}: AMD entries need gfx_target")
        table[facts.name] = facts
    return MappingProxyType(table)


# ---- the whole matrix ----------------------------------------------------------------------------
# (file, model, [(list attribute, version attribute)]) - lists that must be strictly ascending.
_FILES: tuple[tuple[str, type[BaseModel], tuple[tuple[str, str], ...]], ...] = (
    ("nvidia.yaml", f.NvidiaFile, (("cuda_driver", "cuda"), ("driver_branches", "branch"))),
    ("pytorch.yaml", f.PytorchFile, (("releases", "torch"),)),
    ("comms.yaml", f.CommsFile, (("aws_ofi_nccl", "version"), ("efa_installer", "version"), ("nccl_tests", "version"))),
    ("rocm.yaml", f.RocmFile, (("releases", "rocm"),)),
    ("neuron.yaml", f.NeuronFile, (("releases", "sdk"),)),
    ("tpu.yaml", f.TpuFile, (("jax", "jax"), ("torch_xla", "torch_xla"))),
    ("gaudi.yaml", f.GaudiFile, (("releases", "gaudi_sw"),)),
    ("ascend.yaml", f.AscendFile, (("cann", "cann"),)),
    ("os.yaml", f.OsFile, ()),
    ("published.yaml", f.PublishedFile, ()),
)


def _check_sorted(name: str, model: BaseModel, attribute: str, key: str) -> None:
    previous: Version | None = None
    for index, record in enumerate(getattr(model, attribute)):
        value = getattr(record, key) if key else record
        current = parse_version(str(value))
        if previous is not None and not previous < current:
            raise MatrixDataError(
                f"{name}: {attribute}.{index}.{key}: {value} is not after {previous} "
                "(lists are kept in ascending order, without duplicates)"
            )
        previous = current


@dataclass(frozen=True)
class MatrixData:
    """Every data file, validated, plus the lookups the checks need (built once)."""

    accelerators: Mapping[str, AcceleratorFacts]
    nvidia: f.NvidiaFile
    pytorch: f.PytorchFile
    comms: f.CommsFile
    rocm: f.RocmFile
    neuron: f.NeuronFile
    tpu: f.TpuFile
    gaudi: f.GaudiFile
    ascend: f.AscendFile
    os: f.OsFile
    published: f.PublishedFile

    # lookups
    cuda_rows: tuple[tuple[Version, Version, f.CudaDriverRow], ...]
    minor_floor: Mapping[int, f.MinorVersionCompat]
    branches: Mapping[int, f.DriverBranch]
    torch: Mapping[Version, f.TorchRelease]
    os_releases: Mapping[str, f.OsRelease]

    def architecture(self, compute_capability: str) -> f.Architecture | None:
        return _arch_of(self.nvidia, compute_capability)

    def all_facts(self) -> list[BaseModel]:
        """Every sourced record, for the tests that prove each fact has a source."""
        out: list[BaseModel] = list(self.accelerators.values())

        def walk(node: object) -> None:
            if isinstance(node, BaseModel):
                if "source" in type(node).model_fields:
                    out.append(node)
                for name in type(node).model_fields:
                    walk(getattr(node, name))
            elif isinstance(node, tuple):
                for item in node:
                    walk(item)

        for model in (
            self.nvidia,
            self.pytorch,
            self.comms,
            self.rocm,
            self.neuron,
            self.tpu,
            self.gaudi,
            self.ascend,
            self.os,
            self.published,
        ):
            walk(model)
        return out


@cache
def load() -> MatrixData:
    """Load and validate every data file (cached: the first call pays, later calls are free)."""
    models: dict[str, BaseModel] = {}
    for name, model, ordered in _FILES:
        loaded = validate_file(name, model)
        for attribute, key in ordered:
            _check_sorted(name, loaded, attribute, key)
        models[name.removesuffix(".yaml")] = loaded
    accel = accelerators()
    nvidia = models["nvidia"]
    assert isinstance(nvidia, f.NvidiaFile)
    for minimum in nvidia.platform_driver_minimum:
        if minimum.accelerator not in accel:
            raise MatrixDataError(
                f"nvidia.yaml: platform_driver_minimum: unknown accelerator {minimum.accelerator}"
            )
    for facts in accel.values():
        if not facts.compute_capability:
            continue
        arch = _arch_of(nvidia, facts.compute_capability)
        if arch is None:
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: compute capability {facts.compute_capability} "
                "has no architecture in nvidia.yaml"
            )
        extra = [k.value for k in facts.kernel_modules if k not in arch.kernel_modules]
        if extra:
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: kernel module flavour {', '.join(extra)} is not supported "
                f"by {arch.name} (nvidia.yaml architectures)"
            )
        if facts.forward_compat and facts.segment is not Segment.DATACENTER:
            raise MatrixDataError(
                f"accelerators.yaml: {facts.name}: forward_compat is for data-centre GPUs only "
                f"(segment {facts.segment})"
            )
    pytorch = models["pytorch"]
    assert isinstance(pytorch, f.PytorchFile)
    os_file = models["os"]
    assert isinstance(os_file, f.OsFile)
    published = models["published"]
    assert isinstance(published, f.PublishedFile)
    for package in published.packages:
        _check_sorted("published.yaml", package, "versions", "")
        listed = [parse_version(v) for v in package.versions]
        if listed[0] != parse_version(package.known_from) or listed[-1] != parse_version(package.known_until):
            raise MatrixDataError(
                f"published.yaml: {package.key}: known_from/known_until must be the first and last version"
            )
    return MatrixData(
        accelerators=accel,
        nvidia=nvidia,
        pytorch=pytorch,
        comms=models["comms"],  # type: ignore[arg-type]
        rocm=models["rocm"],  # type: ignore[arg-type]
        neuron=models["neuron"],  # type: ignore[arg-type]
        tpu=models["tpu"],  # type: ignore[arg-type]
        gaudi=models["gaudi"],  # type: ignore[arg-type]
        ascend=models["ascend"],  # type: ignore[arg-type]
        os=os_file,
        published=published,
        cuda_rows=tuple((parse_version(r.cuda), parse_version(r.driver), r) for r in nvidia.cuda_driver),
        minor_floor=MappingProxyType({m.cuda_major: m for m in nvidia.minor_version_compat}),
        branches=MappingProxyType({b.branch: b for b in nvidia.driver_branches}),
        torch=MappingProxyType({parse_version(r.torch): r for r in pytorch.releases}),
        os_releases=MappingProxyType({r.os: r for r in os_file.releases}),
    )


def _arch_of(nvidia: f.NvidiaFile, compute_capability: str) -> f.Architecture | None:
    wanted = parse_version(compute_capability)
    for arch in nvidia.architectures:
        if any(parse_version(cc) == wanted for cc in arch.compute_capabilities):
            return arch
    return None
