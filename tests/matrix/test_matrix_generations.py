"""Every NVIDIA generation from Kepler on (data-centre, workstation, GeForce): retired architectures,
kernel-module flavours per generation, forward compatibility only on data-centre parts."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict, accelerators, load
from accelplane.matrix.schema import KernelModule, Segment

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
ARCHMATRIX = "https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html"
FWD = "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html"

GENERATIONS = ("kepler", "maxwell", "pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell")


def test_every_generation_from_kepler_has_datacentre_and_workstation_or_geforce_parts() -> None:
    vocabulary = accelerators()
    for generation in GENERATIONS:
        parts = [f for f in vocabulary.values() if f.architecture == generation]
        segments = {f.segment for f in parts}
        assert Segment.DATACENTER in segments, generation
        if generation != "hopper":  # Hopper has no workstation or GeForce part
            assert segments & {Segment.WORKSTATION, Segment.GEFORCE}, generation


def test_forward_compatibility_is_exactly_the_datacentre_parts() -> None:
    for name, facts in accelerators().items():
        if facts.is_nvidia:
            assert facts.forward_compat == (facts.segment is Segment.DATACENTER), name


def test_open_kernel_modules_only_from_turing_and_blackwell_only_open() -> None:
    for name, facts in accelerators().items():
        if not facts.is_nvidia:
            continue
        arch = load().architecture(facts.compute_capability or "")
        assert arch is not None
        if facts.architecture in ("kepler", "maxwell", "pascal", "volta"):
            assert facts.kernel_modules == (KernelModule.PROPRIETARY,), name
            assert arch.kernel_modules == (KernelModule.PROPRIETARY,), name
        if facts.architecture == "blackwell":
            assert facts.kernel_modules == (KernelModule.OPEN,), name


@pytest.mark.parametrize(
    ("arch", "last_branch", "dropped", "last_cuda"),
    [
        ("kepler", 470, "12.0", "11.x"),
        ("maxwell", 580, "13.0", "12.x"),
        ("pascal", 580, "13.0", "12.x"),
        ("volta", 580, "13.0", "12.x"),
    ],
)
def test_retired_architectures_carry_their_last_branch_and_toolkit(
    arch: str, last_branch: int, dropped: str, last_cuda: str
) -> None:
    rows = [a for a in load().nvidia.architectures if a.name == arch]
    newest = rows[-1]
    assert newest.last_driver_branch == last_branch
    assert newest.dropped_in_cuda == dropped
    assert newest.last_cuda == last_cuda
    assert newest.source == ARCHMATRIX


CASES = [
    (
        "kepler-k80-with-cuda-12",
        {"accelerator": "nvidia-k80", "cuda": "12.0"},
        "nvidia.cuda-arch",
        X,
        ["Kepler", "12.0", "11.x", "R470"],
    ),
    ("kepler-k80-with-cuda-11.4", {"accelerator": "nvidia-k80", "cuda": "11.4"}, "nvidia.cuda-arch", C, []),
    (
        "kepler-geforce-with-r535",
        {"accelerator": "nvidia-geforce-gtx-780-ti", "driver": "535.104.05"},
        "nvidia.driver-gpu",
        X,
        ["R470"],
    ),
    (
        "kepler-k10-with-cuda-11",
        {"accelerator": "nvidia-k10", "cuda": "11.0"},
        "nvidia.cuda-arch",
        X,
        ["10.2"],
    ),
    (
        "kepler-has-no-open-modules",
        {"accelerator": "nvidia-k40", "kernel_module": "open"},
        "nvidia.kernel-module",
        X,
        ["proprietary"],
    ),
    (
        "pascal-p100-with-cuda-13",
        {"accelerator": "nvidia-p100", "cuda": "13.0"},
        "nvidia.cuda-arch",
        X,
        ["Pascal", "12.x", "R580"],
    ),
    ("pascal-p40-with-cuda-12.9", {"accelerator": "nvidia-p40", "cuda": "12.9"}, "nvidia.cuda-arch", C, []),
    (
        "maxwell-with-r590",
        {"accelerator": "nvidia-m60", "driver": "590.44.01"},
        "nvidia.driver-gpu",
        X,
        ["R580"],
    ),
    (
        "volta-titan-open-modules",
        {"accelerator": "nvidia-titan-v", "kernel_module": "open"},
        "nvidia.kernel-module",
        X,
        [],
    ),
    (
        "geforce-with-compat-package",
        {
            "accelerator": "nvidia-geforce-rtx-4090",
            "cuda": "12.8",
            "driver": "535.104.05",
            "compat_package": "12.8",
        },
        "nvidia.cuda-driver",
        X,
        ["data-center"],
    ),
    (
        "workstation-with-compat-package",
        {"accelerator": "nvidia-rtx-a6000", "cuda": "12.8", "driver": "535.104.05", "compat_package": "12.8"},
        "nvidia.cuda-driver",
        X,
        ["data-center"],
    ),
    (
        "datacentre-a40-with-compat-package",
        {"accelerator": "nvidia-a40", "cuda": "13.0", "driver": "535.104.05", "compat_package": "13.0"},
        "nvidia.cuda-driver",
        Verdict.CONDITIONAL,
        ["forward-compatibility"],
    ),
    (
        "rtx-5090-proprietary",
        {"accelerator": "nvidia-geforce-rtx-5090", "kernel_module": "proprietary"},
        "nvidia.kernel-module",
        X,
        ["open"],
    ),
    (
        "rtx-5090-needs-cuda-12.8",
        {"accelerator": "nvidia-geforce-rtx-5090", "cuda": "12.6"},
        "nvidia.cuda-arch",
        X,
        ["12.8"],
    ),
]


@pytest.mark.parametrize(("case", "stack", "rule", "verdict", "words"), CASES, ids=[c[0] for c in CASES])
def test_generation_cases(judge, case, stack, rule, verdict, words) -> None:  # type: ignore[no-untyped-def]
    judged = judge(stack)
    assert judged.verdict(rule) is verdict, judged.dump()
    message = judged.message(rule)
    for word in words:
        assert word in message, message


def test_kepler_with_cuda_12_cites_the_architecture_matrix(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge({"accelerator": "nvidia-k80", "cuda": "12.4"})
    (finding,) = judged.findings("nvidia.cuda-arch")
    assert finding.verdict is X and finding.source == ARCHMATRIX


def test_geforce_compat_package_cites_the_forward_compatibility_page(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge(
        {"accelerator": "nvidia-geforce-rtx-3090", "cuda": "12.8", "driver": "535.104.05", "compat_package": "12.8"}
    )
    bad = [f for f in judged.findings("nvidia.cuda-driver") if f.verdict is X]
    assert bad and bad[0].source == FWD
