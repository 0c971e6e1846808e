"""PyTorch rules: builds, binary compatibility, Python, glibc, companions and pinned libraries."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict
from accelplane.matrix.checks.torch import runs_on

C, W, D, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.CONDITIONAL, Verdict.INCOMPATIBLE
H100 = "nvidia-h100"

CASES = [
    # --- the CUDA / ROCm build exists --------------------------------------------------------------
    (
        "cu128-build-of-2.6-does-not-exist",
        {"accelerator": H100, "torch": "2.6.0", "cuda": "12.8"},
        "torch.build",
        X,
        ["2.6.0", "12.8", "cu124", "2.11.0"],
    ),
    ("cu124-build-of-2.6", {"accelerator": H100, "torch": "2.6.0", "cuda": "12.4"}, "torch.build", C, []),
    (
        "labelled-build-minor-mismatch",
        {"accelerator": H100, "torch": "2.8.0+cu128", "cuda": "12.6"},
        "torch.build",
        W,
        ["12.8", "12.6"],
    ),
    (
        "labelled-build-major-mismatch",
        {"accelerator": H100, "torch": "2.9.0+cu130", "cuda": "12.8"},
        "torch.build",
        X,
        ["13.0", "12.8"],
    ),
    (
        "rocm-build-on-nvidia",
        {"accelerator": H100, "torch": "2.5.1+rocm6.2"},
        "torch.build",
        X,
        ["ROCm build"],
    ),
    ("cpu-build-on-gpu", {"accelerator": H100, "torch": "2.5.1+cpu"}, "torch.build", W, ["CPU-only"]),
    # --- binary compatibility of the build with the GPU ----------------------------------------------
    (
        "sm86-build-runs-on-sm89",
        {"accelerator": "nvidia-l4", "torch": "2.7.0+cu126"},
        "torch.gpu-arch",
        C,
        ["sm_86", "sm_89", "same major 8"],
    ),
    (
        "native-sm90",
        {"accelerator": "nvidia-hgx-h100-8gpu", "torch": "2.6.0+cu124"},
        "torch.gpu-arch",
        C,
        ["native sm_90"],
    ),
    (
        "cu117-build-has-no-hopper",
        {"accelerator": H100, "torch": "2.0.1"},
        "torch.gpu-arch",
        X,
        ["sm_90", "no PTX"],
    ),
    (
        "cu126-build-has-no-blackwell",
        {"accelerator": "nvidia-b200", "torch": "2.7.0+cu126"},
        "torch.gpu-arch",
        X,
        ["sm_100"],
    ),
    (
        "cu128-build-has-blackwell",
        {"accelerator": "nvidia-b200", "torch": "2.7.1+cu128"},
        "torch.gpu-arch",
        C,
        ["native sm_100"],
    ),
    (
        "cu130-build-dropped-volta",
        {"accelerator": "nvidia-v100", "torch": "2.12.0+cu130"},
        "torch.gpu-arch",
        X,
        ["sm_70"],
    ),
    (
        "cu126-build-keeps-volta",
        {"accelerator": "nvidia-v100", "torch": "2.12.0+cu126"},
        "torch.gpu-arch",
        C,
        [],
    ),
    (
        "arch-list-unknown-falls-back-to-toolkit",
        {"accelerator": H100, "torch": "2.8.0"},
        "torch.gpu-arch",
        C,
        ["arch list is not in the matrix"],
    ),
    # --- Python and glibc ----------------------------------------------------------------------------
    (
        "no-cp313-wheel-for-2.4",
        {"accelerator": H100, "torch": "2.4.1", "python": "3.13"},
        "torch.python",
        X,
        ["3.13", "3.12", "2.15.0"],
    ),
    (
        "cp313-wheel-for-2.5",
        {"accelerator": H100, "torch": "2.5.1", "python": "3.13.1"},
        "torch.python",
        C,
        [],
    ),
    (
        "2.15-dropped-3.10",
        {"accelerator": H100, "torch": "2.15.0", "python": "3.10"},
        "torch.python",
        X,
        ["3.10"],
    ),
    (
        "manylinux_2_28-on-ubuntu-18.04",
        {"accelerator": H100, "torch": "2.7.0", "os": "ubuntu-18.04"},
        "torch.glibc",
        X,
        ["2.28", "2.27", "2.6.0"],
    ),
    (
        "manylinux1-on-ubuntu-18.04",
        {"accelerator": H100, "torch": "2.6.0", "os": "ubuntu-18.04"},
        "torch.glibc",
        C,
        [],
    ),
    (
        "explicit-glibc-floor",
        {"accelerator": H100, "torch": "2.8.0", "glibc": "2.17"},
        "torch.glibc",
        X,
        ["2.17"],
    ),
    (
        "amazon-linux-2023-alias",
        {"accelerator": H100, "torch": "2.8.0", "os": "amazon-linux-2023"},
        "torch.glibc",
        C,
        ["2.34"],
    ),
    (
        "os-without-glibc-data",
        {"accelerator": H100, "torch": "2.8.0", "os": "almalinux-9"},
        "torch.glibc",
        W,
        ["not in the matrix"],
    ),
    # --- companions ---------------------------------------------------------------------------------
    (
        "torchvision-pair",
        {"accelerator": H100, "torch": "2.8.0", "torchvision": "0.23.0"},
        "torch.torchvision",
        C,
        [],
    ),
    (
        "torchvision-of-another-torch",
        {"accelerator": H100, "torch": "2.8.0", "torchvision": "0.22.1"},
        "torch.torchvision",
        X,
        ["0.22.1", "2.7.1", "0.23.0"],
    ),
    (
        "torchvision-unknown",
        {"accelerator": H100, "torch": "2.8.0", "torchvision": "0.40.0"},
        "torch.torchvision",
        W,
        ["not in the matrix"],
    ),
    (
        "torchaudio-pair",
        {"accelerator": H100, "torch": "2.0.1", "torchaudio": "2.0.2"},
        "torch.torchaudio",
        C,
        [],
    ),
    (
        "torchaudio-none-for-2.12",
        {"accelerator": H100, "torch": "2.12.0", "torchaudio": "2.11.1"},
        "torch.torchaudio",
        W,
        ["maintenance"],
    ),
    # --- NCCL / cuDNN the wheel pins ------------------------------------------------------------------
    (
        "nccl-is-the-torch-pin",
        {"accelerator": H100, "torch": "2.8.0", "nccl": "2.27.3"},
        "torch.nccl-pin",
        C,
        [],
    ),
    (
        "nccl-differs-from-torch-pin",
        {"accelerator": H100, "torch": "2.8.0", "nccl": "2.26.2"},
        "torch.nccl-pin",
        X,
        ["nvidia-nccl-cu12==2.27.3", "2.26.2", "pip cannot install both"],
    ),
    (
        "cu13-wheel-pins-cu13-nccl",
        {"accelerator": H100, "torch": "2.11.0", "nccl": "2.27.5"},
        "torch.nccl-pin",
        X,
        ["nvidia-nccl-cu13==2.28.9"],
    ),
    (
        "cudnn-is-the-torch-pin",
        {"accelerator": H100, "torch": "2.8.0", "cudnn": "9.10.2.21"},
        "torch.cudnn-pin",
        C,
        [],
    ),
    (
        "cudnn-differs-from-torch-pin",
        {"accelerator": H100, "torch": "2.8.0", "cudnn": "9.5.1.17"},
        "torch.cudnn-pin",
        X,
        ["9.10.2.21"],
    ),
    (
        "non-default-build-pin-from-release-md",
        {"accelerator": H100, "torch": "2.10.0+cu130", "nccl": "2.28.9"},
        "torch.nccl-pin",
        C,
        [],
    ),
    (
        "non-default-build-pin-unknown",
        {"accelerator": H100, "torch": "2.8.0+cu126", "nccl": "2.27.3"},
        "torch.nccl-pin",
        W,
        ["not in the matrix"],
    ),
]


@pytest.mark.parametrize(
    ("stack", "rule", "expected", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_torch_rule(judge, stack, rule, expected, needles) -> None:
    judged = judge(stack)
    assert judged.verdict(rule) is expected, judged.dump()
    for needle in needles:
        assert needle in judged.message(rule), judged.dump()


def test_unknown_torch_release_is_reported_not_passed(judge) -> None:
    judged = judge({"accelerator": H100, "torch": "2.16.0", "python": "3.12"})
    assert judged.verdict("torch.release") is W
    assert "not in the matrix" in judged.message("torch.release")


@pytest.mark.parametrize(
    ("archs", "cc", "how", "entry"),
    [
        (("8.0", "8.6"), "8.9", "sass", "8.6"),  # newest same-major minor wins
        (("8.0", "8.6"), "8.0", "sass", "8.0"),
        (("8.0", "8.6+PTX"), "9.0", "ptx", "8.6+PTX"),  # across majors only PTX helps
        (("9.0a",), "9.0", "sass", "9.0a"),  # arch-specific code: that GPU only
        (("7.5", "12.0+PTX"), "10.0", None, None),  # PTX for a newer CC cannot JIT down
    ],
)
def test_binary_compatibility_model(archs, cc, how, entry) -> None:
    found = runs_on(archs, cc)
    if how is None:
        assert found is None
    else:
        assert found is not None and (found.how, found.entry) == (how, entry)


def test_arch_specific_code_does_not_run_on_a_newer_minor() -> None:
    assert runs_on(("9.0a",), "9.1") is None
