"""Read a node group's software stack back from its labels, and ask the version matrix about it.

The program labels every node group with `accelplane.io/accelerator`, `accelplane.io/profile`,
`accelplane.io/pool` and `versions.accelplane.io/<key>` (each pinned version of the profile, `_`
written `-`), so these rules judge a state or plan file exactly as the declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from functools import lru_cache
from typing import Any

from accelplane.rules.view import Resource, as_list, as_str, mapping

ACCELERATOR_LABEL = "accelplane.io/accelerator"
PROFILE_LABEL = "accelplane.io/profile"
POOL_LABEL = "accelplane.io/pool"
GROUP_LABEL = "accelplane.io/group"
VERSION_PREFIX = "versions.accelplane.io/"
# Keys of the `matrix check` contract (DESIGN.md) other than `accelerator` and `as_of`.
MATRIX_KEYS = frozenset(
    {
        "instance", "os", "kernel", "glibc", "python", "driver", "kernel_module", "fabric_manager", "cuda",
        "compat_package", "cudnn", "nccl", "nccl_package", "torch", "torchvision", "torchaudio", "rocm",
        "rocm_userspace", "amdgpu_kmd", "gpu_target", "neuron_sdk", "torch_neuronx", "jax", "jaxlib", "libtpu",
        "torch_xla", "tpu_runtime", "gaudi_sw", "cann", "torch_npu", "efa_installer", "aws_ofi_nccl",
    }
)


def node_labels(node_group: Resource) -> Mapping[str, Any]:
    return mapping(node_group.get("labels"))


def accelerator(node_group: Resource) -> str | None:
    value = as_str(node_labels(node_group).get(ACCELERATOR_LABEL))
    return value if value and value != "none" else None


def versions(node_group: Resource) -> dict[str, str]:
    """Every `versions.accelplane.io/*` label, keyed by profile field name."""
    return {
        key[len(VERSION_PREFIX):].replace("-", "_"): as_str(value)
        for key, value in node_labels(node_group).items()
        if key.startswith(VERSION_PREFIX) and as_str(value)
    }


def matrix_stack(node_group: Resource) -> dict[str, str] | None:
    """The flat mapping `accelplane.matrix.check` judges, or None for a CPU pool."""
    name = accelerator(node_group)
    if name is None:
        return None
    stack = {k: v for k, v in versions(node_group).items() if k in MATRIX_KEYS}
    instances = [as_str(i) for i in as_list(node_group.get("instanceTypes"))]
    if instances and instances[0]:
        stack["instance"] = instances[0]
    stack["accelerator"] = name
    return stack


Judgment = tuple[str, tuple[tuple[str, str, str], ...]]


def judge(stack: Mapping[str, str], as_of: date | None) -> Judgment:
    """(verdict, ((rule, verdict, message + source), ...)) from the version matrix, cached per stack:
    pools sharing a profile are judged once."""
    return _judge(tuple(sorted(stack.items())), as_of)


@lru_cache(maxsize=2048)
def _judge(items: tuple[tuple[str, str], ...], as_of: date | None) -> Judgment:
    try:
        from accelplane.matrix import check
    except ImportError as error:  # the matrix checker is another issue's; say so plainly
        raise RuntimeError(f"the version matrix checker is not available: {error}") from error
    report = check(dict(items), as_of=as_of, strict=False, origin="node pool labels")
    findings = tuple(
        (str(f.rule), str(f.verdict), f"{f.message}" + (f" (source: {f.source})" if getattr(f, "source", None) else ""))
        for f in report.findings
        if str(f.verdict) != "compatible"
    )
    return str(report.verdict), findings
