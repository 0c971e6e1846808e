"""Schemas of the data files other than accelerators.yaml (which lives in `model.py`).

One pydantic model per file and per record kind. Records inherit `Fact`, so each carries a
`source`; versions are validated as versions on load. Ordering and cross-file consistency are
checked by `matrix.data.load()` after the schemas pass.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from accelplane.matrix.schema import Fact, KernelModule, Source, VersionStr


def _check_arch(value: str) -> str:

    if not re.fullmatch(r"\d+\.\d+a?(\+PTX)?", value):
        raise ValueError(f"arch entry {value!r} must look like 8.6, 9.0a or 12.0+PTX")
    return value


ArchStr = Annotated[str, AfterValidator(_check_arch)]
OsStr = Annotated[str, Field(pattern=r"^[a-z]+-\d+(\.\d+)*$")]
Match = Literal["exact", "series"]


class _File(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---- NVIDIA ----------------------------------------------------------------------------------
class CudaDriverRow(Fact):
    cuda: VersionStr
    driver: VersionStr = Field(description="minimum Linux x86_64 driver (Table 3)")


class MinorVersionCompat(Fact):
    cuda_major: int
    driver_floor: VersionStr


class ForwardCompat(Fact):
    package_pattern: str


class Architecture(Fact):
    name: str
    compute_capabilities: tuple[VersionStr, ...]
    first_cuda: VersionStr
    dropped_in_cuda: VersionStr | None = None
    last_driver_branch: int | None = None
    integrated: bool = Field(False, description="Jetson (integrated) part: not a data-center build target")
    kernel_modules: tuple[KernelModule, ...] = Field(
        (), description="kernel module flavours the architecture supports (open modules need Turing+)"
    )
    last_cuda: str | None = Field(None, description="last CUDA toolkit line that builds for it, e.g. 12.x")


class KernelModuleFacts(Fact):
    open_since_branch: int
    open_default_since_branch: int


class DriverBranch(Fact):
    branch: int
    designation: Literal["LTSB", "PB", "NFB"]
    eol: str | None = Field(None, pattern=r"^\d{4}-\d{2}$", description="end-of-life month (YYYY-MM)")
    max_cuda_major: int

    @property
    def eol_date(self) -> dt.date | None:
        """First day of the end-of-life month: from then on the branch counts as past end of life."""
        if self.eol is None:
            return None
        year, month = (int(part) for part in self.eol.split("-"))
        return dt.date(year, month, 1)


class PlatformDriverMinimum(Fact):
    accelerator: str
    driver: VersionStr


class FabricManagerPolicy(Fact):
    policy: Literal["equal"]


class CudaOsDropped(Fact):
    os: OsStr
    dropped_in_cuda: VersionStr


class CudnnArchFloor(Fact):
    from_cudnn: VersionStr
    compute_capability: VersionStr


class CudnnDriverMinimum(Fact):
    cuda_major: int
    driver: VersionStr


class CudnnFacts(_File):
    min_compute_capability: tuple[CudnnArchFloor, ...]
    driver_minimum: tuple[CudnnDriverMinimum, ...]


class NvidiaFile(_File):
    cuda_driver: tuple[CudaDriverRow, ...]
    minor_version_compat: tuple[MinorVersionCompat, ...]
    forward_compat: ForwardCompat
    architectures: tuple[Architecture, ...]
    kernel_modules: KernelModuleFacts
    driver_branches: tuple[DriverBranch, ...]
    platform_driver_minimum: tuple[PlatformDriverMinimum, ...]
    fabric_manager: FabricManagerPolicy
    cuda_os_dropped: tuple[CudaOsDropped, ...]
    cudnn: CudnnFacts


# ---- PyTorch ---------------------------------------------------------------------------------
class TorchRelease(Fact):
    torch: VersionStr
    python: tuple[VersionStr, ...] = Field(description="CPython versions with a Linux x86_64 wheel on PyPI")
    requires_python: str
    pypi_cuda: VersionStr = Field(description="CUDA of the default PyPI wheel")
    cuda_runtime: VersionStr
    nccl: VersionStr | None = Field(description="nvidia-nccl-cuXX pin of the PyPI wheel")
    cudnn: VersionStr
    glibc: VersionStr = Field(description="glibc floor of the wheel's platform tag")
    cuda_variants: tuple[VersionStr, ...]
    rocm_variants: tuple[VersionStr, ...]
    torchvision: tuple[VersionStr, ...]
    torchaudio: tuple[VersionStr, ...]
    variants_source: Source


class VariantPins(Fact):
    torch: VersionStr = Field(description="release series, 2.7 = 2.7.x")
    cuda: VersionStr
    cudnn: VersionStr | None = None
    nccl: VersionStr | None = None


class ArchList(Fact):
    torch: tuple[VersionStr, ...] = Field(description="release series")
    cuda: tuple[VersionStr, ...]
    archs: tuple[ArchStr, ...]


class PytorchFile(_File):
    releases: tuple[TorchRelease, ...]
    variant_pins: tuple[VariantPins, ...]
    arch_lists: tuple[ArchList, ...]


# ---- NCCL / EFA ------------------------------------------------------------------------------
class NcclPackage(Fact):
    package: str = Field(pattern=r"^nvidia-nccl-cu\d+$")
    cuda_major: int
    first: VersionStr
    last: VersionStr


class AwsOfiNccl(Fact):
    version: VersionStr
    match: Match = "exact"
    tested_nccl: tuple[VersionStr, ...]
    min_nccl: VersionStr


class EfaInstaller(Fact):
    version: VersionStr
    aws_ofi_nccl: VersionStr | None = None
    drops_os: tuple[OsStr, ...] = ()


class NcclTestsRelease(Fact):
    """A source release of nccl-tests: where its tarball is and the tarball's SHA-256."""

    version: VersionStr
    url: str = Field(pattern=r"^https://\S+\.tar\.gz$")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class CommsFile(_File):
    nccl_packages: tuple[NcclPackage, ...]
    aws_ofi_nccl: tuple[AwsOfiNccl, ...]
    efa_installer: tuple[EfaInstaller, ...]
    nccl_tests: tuple[NcclTestsRelease, ...]


# ---- AMD ROCm --------------------------------------------------------------------------------
class RocmRelease(Fact):
    rocm: VersionStr
    gpu_targets: tuple[Annotated[str, Field(pattern=r"^gfx[0-9a-f]+$")], ...]
    products: tuple[str, ...] | None = Field(
        None,
        description="accelerators AMD lists as supported by this release, where its source lists products "
        "(a GPU of a listed LLVM target that is not named here is not supported); None: judged by target",
    )
    os: tuple[OsStr, ...]
    pytorch_validated: tuple[VersionStr, ...] = ()
    rccl: VersionStr | None = None
    jax_validated: tuple[VersionStr, ...] = ()


class KmdUserspace(Fact):
    kmd: tuple[VersionStr, ...]
    userspace: tuple[VersionStr, ...]


class KmdPolicy(Fact):
    windowed_until: VersionStr


class RocmProductOs(Fact):
    """Per-release OS limits: `accelerators` are supported only on `os` (kind only_os), or `os` is
    supported only for `accelerators` (kind os_only_for)."""

    rocm: tuple[VersionStr, ...]
    kind: Literal["only_os", "os_only_for"]
    accelerators: tuple[str, ...]
    os: tuple[OsStr, ...]


class RocmFile(_File):
    releases: tuple[RocmRelease, ...]
    product_os: tuple[RocmProductOs, ...] = ()
    kmd_userspace: tuple[KmdUserspace, ...]
    kmd_policy: KmdPolicy


# ---- AWS Neuron ------------------------------------------------------------------------------
class NeuronPackage(_File):
    version: VersionStr
    match: Match = "exact"
    instances: tuple[str, ...]
    python: tuple[VersionStr, ...] | None = None


class NeuronRelease(Fact):
    sdk: VersionStr
    driver: VersionStr | None = None
    instances: tuple[str, ...]
    torch_neuronx: tuple[NeuronPackage, ...] = ()
    torch_neuron: tuple[NeuronPackage, ...] = Field(
        (), description="torch-neuron 1.x, the Inferentia1 (inf1) line: <torch>.<neuron version>"
    )
    torch_xla: tuple[NeuronPackage, ...] = ()
    libtorch_neuronx_lite: tuple[NeuronPackage, ...] = ()
    jax_neuronx: tuple[NeuronPackage, ...] = ()


class NeuronFile(_File):
    releases: tuple[NeuronRelease, ...]


# ---- Google TPU ------------------------------------------------------------------------------
class JaxRelease(Fact):
    jax: VersionStr
    jaxlib_min: VersionStr
    jaxlib_max: VersionStr
    libtpu: VersionStr
    libtpu_package: str = "libtpu"
    libtpu_match: Match = "exact"
    python_min: VersionStr


class TorchXlaRelease(Fact):
    torch_xla: VersionStr
    match: Match = "exact"
    libtpu: VersionStr
    libtpu_package: str = "libtpu"
    python: tuple[VersionStr, ...]


class TorchXlaPairing(Fact):
    rule: str


class PageReading(Fact):
    """One reading of the page that documents a generation: what it said, and what dates it. Google
    edits these pages in place; keeping each reading shows which text the matrix judges by."""

    read: int = Field(description="1 for the oldest reading, counting up")
    dated: str = Field(description="the page's own date, or what orders the reading when the copy shows none")
    says: str = Field(description="the sentences the judgement rests on, as the page words them")
    frameworks: tuple[str, ...] = Field(description="profile keys of the frameworks this reading documents")


class TpuGenerationSupport(Fact):
    """What a TPU generation runs: the frameworks Google documents for it, and whether it has a TPU VM
    software version (the Cloud TPU API's runtime) at all. Where Google's page said different things over
    time, `readings` keeps each, and the frameworks judged are the newest reading's."""

    accelerator: str
    frameworks: tuple[str, ...] = Field(description="profile keys of the supported frameworks (jax, torch_xla)")
    unsupported: tuple[str, ...] = Field((), description="frameworks Google says it does not support")
    tpu_vm_runtime: bool = Field(True, description="False: no Cloud TPU API, so no TPU VM software version to pin")
    readings: tuple[PageReading, ...] = ()

    @model_validator(mode="after")
    def _judged_by_the_newest_reading(self) -> TpuGenerationSupport:
        if self.readings:
            newest = max(self.readings, key=lambda reading: reading.read)
            if tuple(sorted(self.frameworks)) != tuple(sorted(newest.frameworks)):
                raise ValueError(f"frameworks {list(self.frameworks)} differ from the newest reading's "
                                 f"{list(newest.frameworks)}: the matrix judges by the newest reading")
        return self


class TpuFile(_File):
    jax: tuple[JaxRelease, ...]
    torch_xla: tuple[TorchXlaRelease, ...]
    torch_xla_pairing: TorchXlaPairing
    generations: tuple[TpuGenerationSupport, ...] = ()


# ---- Intel Gaudi -----------------------------------------------------------------------------
class GaudiOs(_File):
    os: OsStr
    python: tuple[VersionStr, ...] | None = None
    kernel: VersionStr | None = None


class GaudiRelease(Fact):
    gaudi_sw: VersionStr
    match: Match = "exact"
    torch: VersionStr
    torch_match: Match = "exact"
    devices: tuple[str, ...] | None = None
    os: tuple[GaudiOs, ...] | None = None


class GaudiFile(_File):
    releases: tuple[GaudiRelease, ...]


# ---- Huawei Ascend ---------------------------------------------------------------------------
class CannRelease(Fact):
    cann: VersionStr
    torch_npu: tuple[VersionStr, ...]


class AscendPython(Fact):
    torch: tuple[VersionStr, ...]
    python: tuple[VersionStr, ...]


class AscendChip(Fact):
    chip: str = Field(description="ascend_chip of accelerators.yaml")
    family: str = Field(description="Huawei's product family name in the CANN / torch_npu support tables")
    first_cann: VersionStr | None = Field(None, description="first CANN release that supports the family")


class AscendFile(_File):
    cann: tuple[CannRelease, ...]
    python: tuple[AscendPython, ...]
    chips: tuple[AscendChip, ...] = ()


# ---- Published releases ----------------------------------------------------------------------
class PublishedPackage(Fact):
    key: str = Field(description="the matrix key whose values are versions of this package")
    package: str
    known_from: VersionStr
    known_until: VersionStr
    versions: tuple[VersionStr, ...] = Field(description="every release in the window, ascending")
    closed: ClosedLine | None = Field(
        None, description="the line is closed: no release after known_until as of a date (a package in maintenance)"
    )


class ClosedLine(Fact):
    """A package that stopped releasing: a pin above `known_until` cannot be installed (as of `as_of`)."""

    as_of: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    reason: str = Field(description="why nothing follows the last release, in a sentence")


class PublishedFile(_File):
    packages: tuple[PublishedPackage, ...]


# ---- Operating systems -----------------------------------------------------------------------
class OsRelease(Fact):
    os: OsStr
    glibc: VersionStr
    default_python: VersionStr | None = None
    python_source: Source | None = None


class OsFile(_File):
    releases: tuple[OsRelease, ...]
    distros: tuple[str, ...]
