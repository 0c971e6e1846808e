"""Software profiles: the one place every version of a pool, a bare-metal group or the add-ons is typed."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from accelplane.declaration.base import (
    ImageDigest,
    Model,
    Version,
)
from accelplane.matrix.schema import KernelModule


class SoftwareProfile(Model):
    """A pinned version set: the single version declaration for pools, Ansible and the rules.

    Field names are the keys of the version matrix (docs/design.md `matrix check` contract) plus
    the node-image and runtime pins that the matrix does not judge. What only one cloud's stacks pin
    (EKS's AMI release and its add-on charts) is that cloud's subclass, in its folder.
    """

    description: str = Field(default="", description="What this profile is for.")
    os: str | None = Field(default=None, description="Operating system, e.g. ubuntu-22.04 or al2023.")
    kernel: Version | None = Field(default=None, description="Kernel release, e.g. 6.8.0.")
    glibc: Version | None = Field(default=None, description="glibc version of the OS image.")
    python: Version | None = Field(default=None, description="Python minor version, e.g. 3.11.")
    driver: Version | None = Field(default=None, description="NVIDIA driver, exact (e.g. 570.172.08).")
    kernel_module: KernelModule | None = Field(default=None, description="NVIDIA kernel module flavour.")
    fabric_manager: Version | None = Field(default=None, description="NVIDIA Fabric Manager (NVSwitch systems).")
    cuda: Version | None = Field(default=None, description="CUDA runtime the framework is built for, e.g. 12.8.")
    compat_package: Version | None = Field(default=None, description="cuda-compat forward-compatibility package.")
    cudnn: Version | None = Field(default=None, description="cuDNN version.")
    nccl: Version | None = Field(default=None, description="NCCL (or RCCL) version.")
    nccl_package: str | None = Field(default=None, description="NCCL pip package, e.g. nvidia-nccl-cu12.")
    nccl_tests: Version | None = Field(
        default=None,
        description="nccl-tests release the bare-metal nodes build for the all-reduce validation, e.g. 2.13.6 "
        "(its tarball and SHA-256 come from the version matrix).",
    )
    torch: Version | None = Field(default=None, description="PyTorch version.")
    torchvision: Version | None = Field(default=None, description="torchvision version.")
    torchaudio: Version | None = Field(default=None, description="torchaudio version.")
    rocm: Version | None = Field(default=None, description="ROCm release.")
    rocm_userspace: Version | None = Field(default=None, description="ROCm user-space release in containers.")
    amdgpu_kmd: Version | None = Field(default=None, description="amdgpu kernel driver version.")
    gpu_target: str | None = Field(default=None, description="LLVM GPU target, e.g. gfx942.")
    neuron_sdk: Version | None = Field(default=None, description="AWS Neuron SDK release.")
    torch_neuronx: Version | None = Field(default=None, description="torch-neuronx version.")
    torch_neuron: Version | None = Field(
        default=None,
        description="torch-neuron version: the Inferentia1 (inf1) SDK line, torch 1.x, e.g. 1.13.1.2.11.13.0.",
    )
    neuronx_cc: Version | None = Field(
        default=None, description="neuronx-cc compiler of the Neuron SDK release (pip), e.g. 2.21.18209.0."
    )
    neuron_runtime: Version | None = Field(
        default=None, description="aws-neuronx-runtime-lib of the Neuron SDK release (apt), e.g. 2.28.23.0."
    )
    neuron_collectives: Version | None = Field(
        default=None, description="aws-neuronx-collectives of the Neuron SDK release (apt), e.g. 2.28.27.0."
    )
    neuron_tools: Version | None = Field(
        default=None, description="aws-neuronx-tools (neuron-ls) of the Neuron SDK release (apt), e.g. 2.26.14.0."
    )
    jax: Version | None = Field(default=None, description="JAX version.")
    jaxlib: Version | None = Field(default=None, description="jaxlib version.")
    libtpu: Version | None = Field(default=None, description="libtpu version.")
    torch_xla: Version | None = Field(default=None, description="torch_xla version.")
    tpu_runtime: str | None = Field(default=None, description="TPU VM runtime image.")
    gaudi_sw: Version | None = Field(default=None, description="Intel Gaudi software release.")
    gaudi_build: str | None = Field(
        default=None,
        pattern=r"^[0-9]+$",
        description="Build number of the Intel Gaudi software release (1.22.0-740: 740): the habanalabs-* package "
        "versions are <gaudi_sw>-<build>, habana-torch-plugin's <gaudi_sw>.<build>.",
    )
    cann: Version | None = Field(default=None, description="Huawei CANN release.")
    ascend_driver: Version | None = Field(
        default=None,
        description="Huawei Ascend NPU driver (Ascend HDK) as its installer names it, e.g. 25.0.rc1.1 "
        "(Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-aarch64.run; /usr/local/Ascend/driver/version.info).",
    )
    ascend_firmware: Version | None = Field(
        default=None,
        description="Huawei Ascend NPU firmware of the driver's Ascend HDK release, e.g. 7.7.0.1.231 "
        "(Ascend-hdk-910b-npu-firmware_7.7.0.1.231.run; npu-smi info -t board).",
    )
    torch_npu: Version | None = Field(default=None, description="torch_npu version.")
    efa_installer: Version | None = Field(default=None, description="AWS EFA installer version.")
    aws_ofi_nccl: Version | None = Field(default=None, description="aws-ofi-nccl plugin version.")
    container_toolkit: Version | None = Field(default=None, description="NVIDIA container toolkit version.")
    containerd: Version | None = Field(default=None, description="containerd version on bare-metal nodes.")
    # Kubernetes add-ons: Helm chart versions. Node-level plugins come from the pools' profiles,
    # cluster-wide controllers from the profile named by `kubernetes.addons_profile`.
    nvidia_device_plugin: Version | None = Field(default=None, description="nvidia-device-plugin chart version.")
    dcgm_exporter: Version | None = Field(default=None, description="NVIDIA dcgm-exporter chart version.")
    neuron_helm_chart: Version | None = Field(
        default=None, description="AWS neuron-helm-chart version (device plugin and scheduler extension)."
    )
    neuron_monitor_image: ImageDigest | None = Field(
        default=None,
        description="AWS neuron-monitor exporter image by digest (public.ecr.aws/neuron/neuron-monitor or a mirror), "
        "run on Neuron pools so Prometheus scrapes their device metrics.",
    )
    kueue: Version | None = Field(default=None, description="Kueue chart version.")
    jobset: Version | None = Field(default=None, description="JobSet chart version.")
    kube_prometheus_stack: Version | None = Field(default=None, description="kube-prometheus-stack chart version.")

    # Keys that describe the node image or runtime, not a compatibility input of the matrix.
    NON_MATRIX_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {
            "description", "container_toolkit", "containerd", "nvidia_device_plugin", "dcgm_exporter",
            "neuron_helm_chart", "kueue", "jobset", "kube_prometheus_stack", "neuron_monitor_image",
            # Package builds the bare-metal roles install; the matrix judges the release itself.
            "gaudi_build", "neuronx_cc", "neuron_runtime", "neuron_collectives", "neuron_tools",
            "ascend_driver", "ascend_firmware",
        }
    )
    # Container images by digest: pinned here like versions, but not versions. They do not fit a node
    # label (63 characters) and no node or host runs them, so `versions()` leaves them out.
    IMAGE_FIELDS: ClassVar[frozenset[str]] = frozenset({"neuron_monitor_image"})

    def versions(self) -> dict[str, str]:
        """Every pinned version that is set (images excluded), as plain strings keyed by field name."""
        return {
            key: str(value)
            for key, value in self.model_dump(exclude_none=True, exclude={"description", *self.IMAGE_FIELDS}).items()
            if value != ""
        }

    def matrix_stack(self, accelerator: str, instance: str | None = None) -> dict[str, str]:
        """The flat mapping `accelplane.matrix.judge` judges, for one pool's accelerator."""
        stack = {k: v for k, v in self.versions().items() if k not in self.NON_MATRIX_FIELDS}
        stack["accelerator"] = accelerator
        if instance:
            stack["instance"] = instance
        return stack
