"""What EKS does per accelerator vendor: the AMI family a node group of the vendor's instances boots,
and the extended resource (and taint key) its device plugin advertises (docs/conventions.md 9: tables,
not branches). Only vendors whose accelerators EC2 offers have one; the vendor is the first part of
the matrix's accelerator name (`accelplane.accelerator_vendors.vendor_of`).
"""

from __future__ import annotations

from dataclasses import dataclass

from accelplane.accelerator_vendors import vendor_of

# The EFA device plugin's extended resource: the interfaces a training pod takes per node.
EFA_RESOURCE = "vpc.amazonaws.com/efa"


@dataclass(frozen=True)
class VendorNodeFacts:
    vendor: str
    # EKS AMI type per CPU architecture (botocore eks `AMITypes`; checked in tests).
    ami_types: dict[str, str]
    # Extended resource the device plugin advertises; also the taint key (the usual convention).
    resource: str

    @property
    def taint_key(self) -> str:
        return self.resource


_CPU = VendorNodeFacts(
    vendor="none",
    ami_types={"x86_64": "AL2023_x86_64_STANDARD", "arm64": "AL2023_ARM_64_STANDARD"},
    resource="",
)

# Only vendors whose accelerators EC2 offers have an EKS AMI family. AMD Instinct, Google TPU,
# Intel Gaudi 3 and Huawei Ascend pools are declared as bare-metal host groups instead.
_VENDORS: dict[str, VendorNodeFacts] = {
    "nvidia": VendorNodeFacts(
        vendor="nvidia",
        ami_types={"x86_64": "AL2023_x86_64_NVIDIA", "arm64": "AL2023_ARM_64_NVIDIA"},
        resource="nvidia.com/gpu",
    ),
    "aws": VendorNodeFacts(
        vendor="aws",
        ami_types={"x86_64": "AL2023_x86_64_NEURON"},
        resource="aws.amazon.com/neuron",
    ),
}


def node_facts(accelerator: str | None) -> VendorNodeFacts | None:
    """Facts for an EKS pool of this accelerator; `None` when EKS has no AMI family for it."""
    if accelerator is None:
        return _CPU
    return _VENDORS.get(vendor_of(accelerator))


def all_node_facts() -> list[VendorNodeFacts]:
    return [_CPU, *_VENDORS.values()]
