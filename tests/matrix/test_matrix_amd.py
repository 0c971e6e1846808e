"""AMD ROCm rules: GPU target, OS, KMD vs user space, torch ROCm builds, RCCL."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
MI300X = "amd-mi300x"

CASES = [
    ("mi300x-on-6.3.3", {"accelerator": MI300X, "rocm": "6.3.3"}, "amd.gpu-target", C, ["gfx942"]),
    (
        "mi355x-needs-rocm-7",
        {"accelerator": "amd-mi355x", "rocm": "6.4.0"},
        "amd.gpu-target",
        X,
        ["gfx950", "7.0.0"],
    ),
    ("mi355x-on-7.1.1", {"accelerator": "amd-mi355x", "rocm": "7.1.1"}, "amd.gpu-target", C, []),
    (
        "wrong-gpu-target-for-device",
        {"accelerator": MI300X, "gpu_target": "gfx90a"},
        "amd.gpu-target",
        X,
        ["gfx90a", "gfx942"],
    ),
    (
        "mi250x-target",
        {"accelerator": "amd-mi250x", "gpu_target": "gfx90a", "rocm": "6.2.4"},
        "amd.gpu-target",
        C,
        [],
    ),
    ("rocm-unknown", {"accelerator": MI300X, "rocm": "7.14.0"}, "amd.gpu-target", W, ["not in the matrix"]),
    (
        "ubuntu-20.04-dropped-in-6.2",
        {"accelerator": MI300X, "rocm": "6.2.0", "os": "ubuntu-20.04"},
        "amd.os",
        X,
        ["ubuntu-20.04", "6.2.0"],
    ),
    ("ubuntu-20.04-on-6.1", {"accelerator": "amd-mi250x", "rocm": "6.1.2", "os": "ubuntu-20.04"}, "amd.os", C, []),
    (
        "mi300x-on-6.1.2-only-ubuntu-22.04.4-and-oracle",
        {"accelerator": MI300X, "rocm": "6.1.2", "os": "ubuntu-20.04"},
        "amd.os",
        X,
        ["ubuntu-22.04.4", "oraclelinux-8.9"],
    ),
    (
        "point-release-not-validated",
        {"accelerator": MI300X, "rocm": "6.3.0", "os": "ubuntu-22.04.3"},
        "amd.os",
        W,
        ["22.04.5"],
    ),
    ("rhel-on-6.3", {"accelerator": MI300X, "rocm": "6.3.1", "os": "rhel-9.4"}, "amd.os", C, []),
    (
        "kmd-6.3-with-userspace-6.1",
        {"accelerator": MI300X, "amdgpu_kmd": "6.3.3", "rocm_userspace": "6.1.2"},
        "amd.kmd-userspace",
        C,
        [],
    ),
    (
        "kmd-6.0-with-userspace-6.3",
        {"accelerator": MI300X, "amdgpu_kmd": "6.0.2", "rocm_userspace": "6.3.0"},
        "amd.kmd-userspace",
        X,
        ["6.0.2", "6.3.0", "5.6"],
    ),
    (
        "kmd-30.20-with-userspace-7.1.1",
        {"accelerator": MI300X, "amdgpu_kmd": "30.20.1", "rocm_userspace": "7.1.1"},
        "amd.kmd-userspace",
        C,
        [],
    ),
    (
        "one-year-rule-pairs-not-listed",
        {"accelerator": MI300X, "amdgpu_kmd": "30.20.1", "rocm_userspace": "7.0.0"},
        "amd.kmd-userspace",
        W,
        ["a year apart"],
    ),
    (
        "torch-bundled-rocm-vs-host-kmd",
        {"accelerator": MI300X, "rocm": "6.3.3", "torch": "2.3.1+rocm6.0"},
        "amd.kmd-userspace",
        X,
        ["6.0"],
    ),
    (
        "torch-bundled-rocm-in-window",
        {"accelerator": MI300X, "rocm": "6.1.2", "torch": "2.7.1+rocm6.3"},
        "amd.kmd-userspace",
        C,
        [],
    ),
    (
        "no-rocm6.2-build-of-2.4",
        {"accelerator": MI300X, "rocm": "6.2.0", "torch": "2.4.1"},
        "torch.build",
        X,
        ["6.2", "rocm6.1", "2.6.0"],
    ),
    (
        "rocm6.2-build-of-2.5",
        {"accelerator": MI300X, "rocm": "6.2.4", "torch": "2.5.1"},
        "torch.build",
        C,
        [],
    ),
    ("cuda-build-on-amd", {"accelerator": MI300X, "torch": "2.8.0+cu128"}, "torch.build", X, ["ROCm build"]),
    ("torch-build-undeclared", {"accelerator": MI300X, "torch": "2.8.0"}, "torch.build", W, ["rocm"]),
    ("rccl-of-the-release", {"accelerator": MI300X, "rocm": "6.3.3", "nccl": "2.21.5"}, "amd.rccl", C, []),
    (
        "rccl-of-another-release",
        {"accelerator": MI300X, "rocm": "6.3.3", "nccl": "2.20.5"},
        "amd.rccl",
        W,
        ["2.21.5"],
    ),
]


@pytest.mark.parametrize(
    ("stack", "rule", "expected", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_amd_rule(judge, stack, rule, expected, needles) -> None:
    judged = judge(stack)
    assert judged.verdict(rule) is expected, judged.dump()
    for needle in needles:
        assert needle in judged.message(rule), judged.dump()
