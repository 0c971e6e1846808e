"""NCCL package, aws-ofi-nccl and EFA installer rules."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
H100 = "nvidia-hgx-h100-8gpu"

CASES = [
    (
        "cu12-package-with-cuda13",
        {"accelerator": H100, "nccl_package": "nvidia-nccl-cu12", "cuda": "13.0"},
        "nccl.package",
        X,
        ["CUDA 12", "13.0", "nvidia-nccl-cu13"],
    ),
    (
        "cu13-package-with-cuda13",
        {"accelerator": H100, "nccl_package": "nvidia-nccl-cu13", "cuda": "13.0", "nccl": "2.28.9"},
        "nccl.package",
        C,
        [],
    ),
    (
        "no-cu13-build-of-old-nccl",
        {"accelerator": H100, "nccl": "2.21.5", "cuda": "13.0"},
        "nccl.package",
        X,
        ["2.27.7"],
    ),
    (
        "package-against-torch-build",
        {"accelerator": H100, "nccl_package": "nvidia-nccl-cu12", "torch": "2.11.0"},
        "nccl.package",
        X,
        ["nvidia-nccl-cu13"],
    ),
    (
        "apt-package-version-disagrees",
        {"accelerator": H100, "nccl_package": "libnccl2=2.21.5-1+cuda12.4", "nccl": "2.20.5", "cuda": "12.4"},
        "nccl.package",
        X,
        ["2.21.5", "2.20.5"],
    ),
    (
        "nccl-newer-than-the-data",
        {"accelerator": H100, "nccl": "2.40.1", "cuda": "12.8"},
        "nccl.package",
        W,
        ["not in the matrix"],
    ),
    (
        "ofi-tested-range",
        {"accelerator": H100, "aws_ofi_nccl": "1.16.3", "nccl": "2.27.3"},
        "nccl.aws-ofi-nccl",
        C,
        [],
    ),
    (
        "ofi-old-suffix-spelling",
        {"accelerator": H100, "aws_ofi_nccl": "1.12.0-aws", "nccl": "2.23.4"},
        "nccl.aws-ofi-nccl",
        C,
        [],
    ),
    (
        "ofi-below-min-nccl",
        {"accelerator": H100, "aws_ofi_nccl": "1.17.3", "nccl": "2.16.5"},
        "nccl.aws-ofi-nccl",
        X,
        ["2.17.1", "2.16.5"],
    ),
    (
        "nccl-newer-than-ofi-tested",
        {"accelerator": H100, "aws_ofi_nccl": "1.16.3", "nccl": "2.30.7"},
        "nccl.aws-ofi-nccl",
        W,
        ["2.30.7", "tested"],
    ),
    (
        "ofi-unknown-release",
        {"accelerator": H100, "aws_ofi_nccl": "1.30.0", "nccl": "2.30.7"},
        "nccl.aws-ofi-nccl",
        W,
        ["not in the matrix"],
    ),
    (
        "efa-bundles-the-pinned-plugin",
        {"accelerator": H100, "efa_installer": "1.43.2", "aws_ofi_nccl": "1.16.3"},
        "efa.installer",
        C,
        [],
    ),
    (
        "efa-bundles-another-plugin",
        {"accelerator": H100, "efa_installer": "1.43.2", "aws_ofi_nccl": "1.17.3"},
        "efa.installer",
        W,
        ["1.16.3", "1.17.3"],
    ),
    (
        "efa-dropped-ubuntu-20.04",
        {"accelerator": H100, "efa_installer": "1.43.0", "os": "ubuntu-20.04"},
        "efa.os",
        X,
        ["1.43.0", "ubuntu-20.04"],
    ),
    (
        "efa-dropped-al2",
        {"accelerator": "aws-trainium", "efa_installer": "1.50.0", "os": "al2"},
        "efa.os",
        X,
        ["amazonlinux-2"],
    ),
    (
        "efa-unknown-with-plugin",
        {"accelerator": H100, "efa_installer": "1.45.0", "aws_ofi_nccl": "1.17.0"},
        "efa.installer",
        W,
        ["not in the matrix"],
    ),
]


@pytest.mark.parametrize(
    ("stack", "rule", "expected", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_comms_rule(judge, stack, rule, expected, needles) -> None:
    judged = judge(stack)
    assert judged.verdict(rule) is expected, judged.dump()
    for needle in needles:
        assert needle in judged.message(rule), judged.dump()


def test_efa_before_the_drop_keeps_the_os(judge) -> None:
    judged = judge({"accelerator": H100, "efa_installer": "1.42.0", "os": "ubuntu-20.04"})
    assert not judged.findings("efa.os")
