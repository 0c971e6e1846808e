"""NVIDIA rules, each with compatible and incompatible cases built from the facts."""

from __future__ import annotations

import datetime as dt

import pytest

from accelplane.matrix import Verdict

C, W, D, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.CONDITIONAL, Verdict.INCOMPATIBLE
H100 = "nvidia-h100"

CASES = [
    # --- CUDA vs driver: Table 3, minor-version compatibility, forward compatibility -------------
    (
        "table3-met",
        {"accelerator": H100, "driver": "570.172.08", "cuda": "12.8"},
        "nvidia.cuda-driver",
        C,
        ["570.26"],
    ),
    (
        "table3-exact-minimum",
        {"accelerator": H100, "driver": "550.54.14", "cuda": "12.4"},
        "nvidia.cuda-driver",
        C,
        [],
    ),
    (
        "minor-version-compat-is-conditional",
        {"accelerator": H100, "driver": "535.104.05", "cuda": "12.4"},
        "nvidia.cuda-driver",
        D,
        ["535.104.05", "550.54.14", "minor-version compatibility", "fix"],
    ),
    (
        "update-release-needs-its-own-row",
        {"accelerator": H100, "driver": "550.54.14", "cuda": "12.4.1"},
        "nvidia.cuda-driver",
        D,
        ["550.54.15"],
    ),
    (
        "cuda11-floor-footnote",
        {"accelerator": "nvidia-a100", "driver": "450.80.02", "cuda": "11.8"},
        "nvidia.cuda-driver",
        D,
        ["450.80.02"],
    ),
    (
        "below-cuda12-floor",
        {"accelerator": H100, "driver": "470.82.01", "cuda": "12.4"},
        "nvidia.cuda-driver",
        X,
        ["470.82.01", "550.54.14", "525.60.13", "cuda-compat-12-4", "CUDA 11.4"],
    ),
    (
        "never-across-majors",
        {"accelerator": H100, "driver": "575.57.08", "cuda": "13.0"},
        "nvidia.cuda-driver",
        X,
        ["575.57.08", "580.65.06"],
    ),
    (
        "forward-compat-package-is-conditional",
        {"accelerator": H100, "driver": "535.104.05", "cuda": "13.0", "compat_package": "cuda-compat-13-0"},
        "nvidia.cuda-driver",
        D,
        ["cuda-compat-13-0", "forward-compatibility"],
    ),
    (
        "forward-compat-package-too-old",
        {"accelerator": H100, "driver": "535.104.05", "cuda": "13.0", "compat_package": "12.8"},
        "nvidia.cuda-driver",
        X,
        ["cuda-compat-12-8", "13.0"],
    ),
    (
        "compat-package-not-needed-shadows-libcuda",
        {"accelerator": H100, "driver": "580.95.05", "cuda": "12.8", "compat_package": "cuda-compat-12-8"},
        "nvidia.cuda-driver",
        W,
        ["not needed"],
    ),
    (
        "torch-wheel-cuda-judged-without-cuda-key",
        {"accelerator": H100, "driver": "550.54.15", "torch": "2.8.0"},
        "nvidia.cuda-driver",
        D,
        ["torch 2.8.0 wheel", "12.8"],
    ),
    (
        "torch-cu130-wheel-on-r570",
        {"accelerator": H100, "driver": "570.172.08", "torch": "2.11.0"},
        "nvidia.cuda-driver",
        X,
        ["13.0", "570.172.08"],
    ),
    # --- toolkit vs architecture -----------------------------------------------------------------
    (
        "cuda13-dropped-volta",
        {"accelerator": "nvidia-v100", "cuda": "13.0"},
        "nvidia.cuda-arch",
        X,
        ["Volta", "13.0", "12.x"],
    ),
    ("cuda12-still-has-volta", {"accelerator": "nvidia-v100", "cuda": "12.8"}, "nvidia.cuda-arch", C, []),
    (
        "blackwell-needs-cuda-12.8",
        {"accelerator": "nvidia-b200", "cuda": "12.6"},
        "nvidia.cuda-arch",
        X,
        ["12.6", "12.8"],
    ),
    ("blackwell-on-cuda-12.8", {"accelerator": "nvidia-b200", "cuda": "12.8"}, "nvidia.cuda-arch", C, []),
    (
        "sm80-code-runs-on-sm86",
        {"accelerator": "nvidia-a10g", "cuda": "11.0.3"},
        "nvidia.cuda-arch",
        C,
        ["sm_80", "sm_86", "same major"],
    ),
    (
        "ada-before-11.8",
        {"accelerator": "nvidia-l4", "cuda": "11.7"},
        "nvidia.cuda-arch",
        C,
        ["sm_86 code runs on sm_89"],
    ),
    ("hopper-before-11.8", {"accelerator": H100, "cuda": "11.7"}, "nvidia.cuda-arch", X, ["11.8"]),
    # --- driver vs GPU ---------------------------------------------------------------------------
    (
        "volta-after-r580",
        {"accelerator": "nvidia-v100", "driver": "590.48.01"},
        "nvidia.driver-gpu",
        X,
        ["R590", "R580"],
    ),
    ("volta-on-r580", {"accelerator": "nvidia-v100", "driver": "580.95.05"}, "nvidia.driver-gpu", C, []),
    (
        "blackwell-driver-too-old",
        {"accelerator": "nvidia-b200", "driver": "560.35.05"},
        "nvidia.driver-gpu",
        X,
        ["570.26"],
    ),
    (
        "hgx-b200-platform-minimum",
        {"accelerator": "nvidia-hgx-b200-8gpu", "driver": "570.124.06"},
        "nvidia.driver-gpu",
        X,
        ["570.133.20"],
    ),
    (
        "hgx-b200-platform-minimum-met",
        {"accelerator": "nvidia-hgx-b200-8gpu", "driver": "570.172.08"},
        "nvidia.driver-gpu",
        C,
        [],
    ),
    # --- kernel modules --------------------------------------------------------------------------
    (
        "blackwell-proprietary",
        {"accelerator": "nvidia-b200", "driver": "570.172.08", "kernel_module": "proprietary"},
        "nvidia.kernel-module",
        X,
        ["open"],
    ),
    (
        "blackwell-open",
        {"accelerator": "nvidia-b200", "driver": "570.172.08", "kernel_module": "open"},
        "nvidia.kernel-module",
        C,
        [],
    ),
    (
        "grace-hopper-proprietary",
        {"accelerator": "nvidia-gh200", "kernel_module": "proprietary"},
        "nvidia.kernel-module",
        X,
        ["open"],
    ),
    (
        "volta-open",
        {"accelerator": "nvidia-v100", "kernel_module": "open"},
        "nvidia.kernel-module",
        X,
        ["proprietary"],
    ),
    (
        "open-before-r515",
        {"accelerator": H100, "driver": "510.47.03", "kernel_module": "open"},
        "nvidia.kernel-module",
        X,
        ["R515"],
    ),
    (
        "undeclared-default-proprietary-on-grace-hopper",
        {"accelerator": "nvidia-gh200", "driver": "550.54.15"},
        "nvidia.kernel-module",
        W,
        ["proprietary flavour by default", "kernel_module: open"],
    ),
    # --- Fabric Manager --------------------------------------------------------------------------
    (
        "fm-equals-driver",
        {"accelerator": "nvidia-hgx-h100-8gpu", "driver": "570.172.08", "fabric_manager": "570.172.08"},
        "nvidia.fabric-manager",
        C,
        [],
    ),
    (
        "fm-one-patch-away",
        {"accelerator": "nvidia-hgx-h100-8gpu", "driver": "570.172.08", "fabric_manager": "570.158.01"},
        "nvidia.fabric-manager",
        X,
        ["570.158.01", "570.172.08", 'fabric_manager: "570.172.08"'],
    ),
    (
        "fm-missing-on-nvswitch",
        {"accelerator": "nvidia-hgx-h200-8gpu", "driver": "570.172.08"},
        "nvidia.fabric-manager",
        X,
        ["NVSwitch"],
    ),
    (
        "fm-on-pcie-gpu",
        {"accelerator": H100, "driver": "570.172.08", "fabric_manager": "570.172.08"},
        "nvidia.fabric-manager",
        W,
        ["no NVSwitch"],
    ),
    # --- lifecycle -------------------------------------------------------------------------------
    (
        "r535-past-eol",
        {"accelerator": H100, "driver": "535.261.03"},
        "nvidia.driver-lifecycle",
        W,
        ["R535", "June 2026", "R620"],
    ),
    (
        "r580-supported",
        {"accelerator": H100, "driver": "580.95.05"},
        "nvidia.driver-lifecycle",
        C,
        ["June 2028"],
    ),
    (
        "unknown-future-branch",
        {"accelerator": H100, "driver": "650.10.01"},
        "nvidia.driver-lifecycle",
        W,
        ["not in the matrix", "R650"],
    ),
    # --- OS and cuDNN ----------------------------------------------------------------------------
    (
        "cuda13-on-ubuntu-20.04",
        {"accelerator": H100, "cuda": "13.0", "os": "ubuntu-20.04"},
        "nvidia.cuda-os",
        X,
        ["ubuntu-20.04", "13.0"],
    ),
    (
        "cudnn-9.11-needs-turing",
        {"accelerator": "nvidia-v100", "cudnn": "9.11.0"},
        "nvidia.cudnn",
        X,
        ["9.10.2"],
    ),
    ("cudnn-9.10-on-volta", {"accelerator": "nvidia-v100", "cudnn": "9.10.2.21"}, "nvidia.cudnn", C, []),
    (
        "cudnn-cuda13-driver-minimum",
        {"accelerator": H100, "cudnn": "9.13.0.50", "cuda": "13.0", "driver": "575.57.08"},
        "nvidia.cudnn",
        X,
        ["580.65.06"],
    ),
]


@pytest.mark.parametrize(
    ("stack", "rule", "expected", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_nvidia_rule(judge, stack, rule, expected, needles) -> None:
    judged = judge(stack)
    assert judged.verdict(rule) is expected, judged.dump()
    for needle in needles:
        assert needle in judged.message(rule), judged.dump()


def test_cuda_newer_than_the_data_is_not_a_silent_pass(judge) -> None:
    judged = judge({"accelerator": H100, "driver": "620.10.01", "cuda": "13.5"})
    findings = judged.findings("nvidia.cuda-driver")
    assert any(f.not_in_matrix and f.verdict is Verdict.WARN for f in findings), judged.dump()
    assert "13.5" in judged.message("nvidia.cuda-driver")


def test_unknown_cuda_below_its_major_floor_is_still_incompatible(judge) -> None:
    judged = judge({"accelerator": H100, "driver": "575.57.08", "cuda": "13.4"})
    assert judged.verdict("nvidia.cuda-driver") is X


def test_lifecycle_flips_on_the_first_day_of_the_eol_month(judge) -> None:
    stack = {"accelerator": H100, "driver": "535.261.03"}
    assert judge(stack, as_of=dt.date(2026, 5, 31)).verdict("nvidia.driver-lifecycle") is C
    assert judge(stack, as_of=dt.date(2026, 6, 1)).verdict("nvidia.driver-lifecycle") is W


def test_lifecycle_successor_skips_branches_that_drop_the_gpu(judge) -> None:
    judged = judge({"accelerator": "nvidia-v100", "driver": "535.261.03"})
    assert "R580" in judged.message("nvidia.driver-lifecycle")


def test_nvidia_rules_stay_silent_on_other_vendors(judge) -> None:
    judged = judge({"accelerator": "aws-trainium", "neuron_sdk": "2.31.1"})
    assert not [f for f in judged.report.findings if f.rule.startswith("nvidia.")]


def test_torch_wheel_runtime_library_version_is_judged_by_its_toolkit_line(judge) -> None:
    # torch 2.8.0 pins nvidia-cuda-runtime-cu12==12.8.90: a library build of the 12.8 line,
    # not a toolkit release.
    judged = judge({"accelerator": H100, "driver": "570.172.08", "torch": "2.8.0"})
    assert judged.verdict("nvidia.cuda-driver") is C
    assert not [f for f in judged.report.findings if f.not_in_matrix], judged.dump()


def test_a_gpus_own_driver_minimum_overrides_its_branchs_on_both_sides(judge) -> None:
    """HGX B200 needs 570.133.20 (GPU Operator platform support), later in the R570 branch than CUDA
    12.8's 570.26; the single B200 (the same GPU) inherits it at low confidence. Both sides of the line."""
    for accelerator in ("nvidia-hgx-b200-8gpu", "nvidia-b200"):
        profile = {"accelerator": accelerator, "python": "3.11", "kernel_module": "open", "cuda": "12.8"}
        if accelerator.startswith("nvidia-hgx"):
            profile["fabric_manager"] = "570.124.06"
        below = judge({**profile, "driver": "570.124.06"})
        assert below.verdict("nvidia.driver-gpu") is Verdict.INCOMPATIBLE
        assert "needs driver 570.133.20 or newer" in below.message("nvidia.driver-gpu")
        assert below.findings("nvidia.driver-gpu")[0].source == "https://github.com/NVIDIA/cloud-native-docs/pull/184"
        if accelerator.startswith("nvidia-hgx"):
            profile["fabric_manager"] = "570.133.20"
        at = judge({**profile, "driver": "570.133.20"})
        assert at.verdict("nvidia.driver-gpu") is Verdict.COMPATIBLE
