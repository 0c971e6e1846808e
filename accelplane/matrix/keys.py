"""The flat keys of the `matrix check` contract (docs/design.md): plain data, so the rules and the
declaration can name them without loading the matrix."""

from __future__ import annotations

VERSION_KEYS = frozenset(
    {
        "kernel",
        "glibc",
        "python",
        "driver",
        "fabric_manager",
        "cuda",
        "cudnn",
        "nccl",
        "torch",
        "torchvision",
        "torchaudio",
        "rocm",
        "rocm_userspace",
        "amdgpu_kmd",
        "neuron_sdk",
        "torch_neuronx",
        "torch_neuron",
        "jax",
        "jaxlib",
        "libtpu",
        "torch_xla",
        "gaudi_sw",
        "cann",
        "torch_npu",
        "efa_installer",
        "aws_ofi_nccl",
        "nccl_tests",
    }
)
OTHER_KEYS = frozenset(
    {
        "accelerator",
        "instance",
        "os",
        "kernel_module",
        "compat_package",
        "nccl_package",
        "gpu_target",
        "tpu_runtime",
        "as_of",
    }
)
MATRIX_KEYS: frozenset[str] = VERSION_KEYS | OTHER_KEYS
