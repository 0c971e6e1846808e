"""Per-vendor facts the cloud and Kubernetes layers look up (docs/conventions.md 9: tables, not branches).

Accelerator names are `<vendor>-<model>` (the matrix vocabulary); the vendor decides the EKS AMI
family, the node taint and the Kubernetes extended resource a pod requests. On GKE the vendor
decides the extended resource GKE's own device plugin advertises and the taint GKE itself puts on
the vendor's nodes (`gke_node_facts`).
"""

from __future__ import annotations

from dataclasses import dataclass


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

EFA_RESOURCE = "vpc.amazonaws.com/efa"


def vendor_of(accelerator: str) -> str:
    return accelerator.split("-", 1)[0]


def node_facts(accelerator: str | None) -> VendorNodeFacts | None:
    """Facts for an EKS pool of this accelerator; `None` when EKS has no AMI family for it."""
    if accelerator is None:
        return _CPU
    return _VENDORS.get(vendor_of(accelerator))


def all_node_facts() -> list[VendorNodeFacts]:
    return [_CPU, *_VENDORS.values()]


@dataclass(frozen=True)
class GkeVendorFacts:
    """What GKE does on its own for a vendor's nodes: its device plugin advertises `resource`, and GKE
    taints the nodes `taint_key=taint_value:NoSchedule` so only pods that tolerate it land there."""

    vendor: str
    resource: str
    taint_key: str
    taint_value: str
    taint_effect: str  # Kubernetes spelling
    source: str


# GKE Standard runs its own device plugins for both (no chart to install): TPU nodes carry
# google.com/tpu=present:NoSchedule (https://cloud.google.com/kubernetes-engine/docs/concepts/tpus#how_tpus_work),
# GPU nodes nvidia.com/gpu=present:NoSchedule in a cluster that also has other pools
# (https://cloud.google.com/kubernetes-engine/docs/concepts/gpus).
_GKE_VENDORS: dict[str, GkeVendorFacts] = {
    "google": GkeVendorFacts(
        vendor="google",
        resource="google.com/tpu",
        taint_key="google.com/tpu",
        taint_value="present",
        taint_effect="NoSchedule",
        source="https://cloud.google.com/kubernetes-engine/docs/concepts/tpus#how_tpus_work",
    ),
    "nvidia": GkeVendorFacts(
        vendor="nvidia",
        resource="nvidia.com/gpu",
        taint_key="nvidia.com/gpu",
        taint_value="present",
        taint_effect="NoSchedule",
        source="https://cloud.google.com/kubernetes-engine/docs/concepts/gpus",
    ),
}


def gke_node_facts(accelerator: str | None) -> GkeVendorFacts | None:
    """Facts for a GKE pool of this accelerator; `None` for CPU pools and vendors GKE has no plugin for."""
    if accelerator is None:
        return None
    return _GKE_VENDORS.get(vendor_of(accelerator))
