"""Schema of the matrix data files (pydantic, strict) and the public fact types.

Every record carries `source`: the public page, repository file or registry read the fact came
from. A record without one fails validation, so a fact without a source cannot be loaded.
Version lists must be sorted ascending in the files (the loader checks; sorting hides mistakes
such as a duplicated row with a typo).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from accelplane.matrix.versions import VersionError, parse_version

_SOURCE_RE = re.compile(r"^(https?://\S+|registry:\S+|github:\S+|reference:\S+)")


def _check_source(value: str) -> str:
    value = value.strip()
    if not _SOURCE_RE.match(value):
        raise ValueError(
            "source must start with https://, registry:<package>, github:<owner/repo@commit/path> or "
            f"reference:<file> (got {value!r})"
        )
    return value


def _check_version(value: str) -> str:
    try:
        parse_version(value)
    except VersionError as error:
        raise ValueError(str(error)) from None
    return value


Source = Annotated[
    str, Field(min_length=8, description="public source of the fact"), AfterValidator(_check_source)
]
VersionStr = Annotated[str, AfterValidator(_check_version)]


class Fact(BaseModel):
    """Base of every data record: frozen, no unknown fields, always sourced."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: Source
    confidence: str = Field(
        "H", pattern="^[HML]$", description="H primary source, M faithful copy, L inferred"
    )
    note: str | None = Field(None, description="why the fact is shaped this way, or its caveat")


class Vendor(StrEnum):
    NVIDIA = "nvidia"
    AMD = "amd"
    # AWS as the maker of the Trainium and Inferentia accelerators (the Neuron SDK), not the cloud.
    NEURON = "aws"
    GOOGLE = "google"
    INTEL = "intel"
    HUAWEI = "huawei"


class KernelModule(StrEnum):
    OPEN = "open"
    PROPRIETARY = "proprietary"


class Segment(StrEnum):
    """NVIDIA product line: forward compatibility (cuda-compat) exists only for data-centre parts."""

    DATACENTER = "datacenter"
    WORKSTATION = "workstation"
    GEFORCE = "geforce"


class AcceleratorFacts(Fact):
    """One entry of the closed accelerator vocabulary (`<vendor>-<model>`)."""

    name: str = Field(pattern=r"^(nvidia|amd|aws|google|intel|huawei)-[a-z0-9][a-z0-9-]*$")
    vendor: Vendor
    model: str = Field(description="marketing name of the device or board")
    architecture: str | None = Field(None, description="vendor architecture (hopper, cdna3, trn2, v5e ...)")
    compute_capability: VersionStr | None = Field(None, description="NVIDIA compute capability, e.g. 9.0")
    gfx_target: str | None = Field(None, pattern=r"^gfx[0-9a-f]+$", description="AMD LLVM target")
    segment: Segment | None = Field(
        None, description="NVIDIA product line: datacenter, workstation (Quadro / RTX) or geforce (incl. TITAN)"
    )
    product_names: tuple[str, ...] = Field(
        (), description="what the vendor's tool prints for one device: nvidia-smi `name`, rocm-smi `Card Series` "
        "(node validation fails a node whose devices name none of these)"
    )
    product_names_source: Source | None = None
    nvswitch: bool = Field(False, description="NVSwitch board: needs Fabric Manager equal to the driver")
    gpus_per_node: int = Field(1, ge=1, description="devices on the board this name describes")
    kernel_modules: tuple[KernelModule, ...] = Field(
        (), description="NVIDIA kernel module flavours the platform supports (empty: not NVIDIA)"
    )
    kernel_modules_source: Source | None = None
    forward_compat: bool = Field(False, description="cuda-compat forward-compatibility packages supported")
    neuron_platform: str | None = Field(
        None, description="Neuron SDK instance family (trn1, trn2, inf2, trn3)"
    )
    tpu_runtime: str | None = Field(None, description="TPU VM software version for PyTorch and JAX")
    gaudi_device: str | None = Field(None, description="device name in the Intel Gaudi support matrix")
    ascend_chip: str | None = Field(None, description="Ascend chip family")
    instance_types: tuple[str, ...] = Field(
        (), description="cloud instance/machine types with this accelerator; `*` matches any size"
    )
    instance_types_source: Source | None = None
    # Compute Engine machine types with this accelerator (GKE GPU pools); their own source.
    gce_machine_types: tuple[str, ...] = Field(
        (), description="Compute Engine machine types with this accelerator; `*` matches any size"
    )
    gce_machine_types_source: Source | None = None

    @property
    def is_nvidia(self) -> bool:
        return self.vendor is Vendor.NVIDIA

    @property
    def requires_open_kernel_module(self) -> bool:
        return self.kernel_modules == (KernelModule.OPEN,)
