"""Intel Gaudi and Huawei Ascend rules."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
G2, G3 = "intel-gaudi2", "intel-gaudi3"
ASCEND = "huawei-ascend-910b"

CASES = [
    ("gaudi3-needs-1.16", {"accelerator": G3, "gaudi_sw": "1.15.0"}, "gaudi.device", X, ["1.16.0"]),
    ("gaudi3-on-1.16", {"accelerator": G3, "gaudi_sw": "1.16.0"}, "gaudi.device", C, []),
    (
        "first-gen-gaudi-dropped-in-1.22",
        {"accelerator": "intel-gaudi", "gaudi_sw": "1.22.0"},
        "gaudi.device",
        X,
        ["1.21.0"],
    ),
    (
        "gaudi-1.20-devices-unknown",
        {"accelerator": G2, "gaudi_sw": "1.20.0"},
        "gaudi.device",
        W,
        ["not in the matrix"],
    ),
    (
        "gaudi-sw-newer-than-data",
        {"accelerator": G2, "gaudi_sw": "1.30.0"},
        "gaudi.device",
        W,
        ["not in the matrix"],
    ),
    ("gaudi-build-suffix", {"accelerator": G2, "gaudi_sw": "1.21.0-555"}, "gaudi.device", C, []),
    ("gaudi-torch", {"accelerator": G2, "gaudi_sw": "1.18.0", "torch": "2.4.0"}, "gaudi.torch", C, []),
    (
        "gaudi-torch-of-another-release",
        {"accelerator": G2, "gaudi_sw": "1.18.0", "torch": "2.5.1"},
        "gaudi.torch",
        X,
        ["2.4.0", "2.5.1"],
    ),
    ("gaudi-torch-series", {"accelerator": G3, "gaudi_sw": "1.22.0", "torch": "2.7.1"}, "gaudi.torch", C, []),
    (
        "gaudi-os-dropped",
        {"accelerator": G2, "gaudi_sw": "1.18.0", "os": "ubuntu-20.04"},
        "gaudi.os",
        X,
        ["ubuntu-20.04"],
    ),
    (
        "gaudi-python-per-os",
        {"accelerator": G2, "gaudi_sw": "1.18.0", "os": "ubuntu-24.04", "python": "3.10"},
        "gaudi.os",
        X,
        ["3.12"],
    ),
    (
        "gaudi-kernel",
        {"accelerator": G2, "gaudi_sw": "1.19.0", "os": "ubuntu-24.04", "kernel": "6.5.0"},
        "gaudi.os",
        W,
        ["6.8"],
    ),
    (
        "gaudi-os-python-ok",
        {"accelerator": G3, "gaudi_sw": "1.19.0", "os": "ubuntu-22.04", "python": "3.11"},
        "gaudi.os",
        C,
        [],
    ),
    (
        "cann-and-torch-npu",
        {"accelerator": ASCEND, "cann": "8.0.RC3", "torch_npu": "2.4.0", "torch": "2.4.0"},
        "ascend.cann",
        C,
        [],
    ),
    (
        "torch-npu-not-in-cann",
        {"accelerator": ASCEND, "cann": "8.0.0", "torch_npu": "2.4.0"},
        "ascend.cann",
        X,
        ["2.4.0.post2", "8.0.RC3"],
    ),
    (
        "cann-unknown",
        {"accelerator": ASCEND, "cann": "10.0.0", "torch_npu": "2.12.0"},
        "ascend.cann",
        W,
        ["not in the matrix"],
    ),
    (
        "torch-npu-unknown",
        {"accelerator": ASCEND, "torch_npu": "2.14.0"},
        "ascend.cann",
        W,
        ["not in the matrix"],
    ),
    (
        "torch-npu-post-release-torch",
        {"accelerator": ASCEND, "torch_npu": "2.1.0.post17", "torch": "2.1.0"},
        "ascend.torch",
        C,
        [],
    ),
    (
        "torch-npu-of-another-torch",
        {"accelerator": ASCEND, "torch_npu": "2.1.0.post17", "torch": "2.2.0"},
        "ascend.torch",
        X,
        ["2.1.0", "2.2.0"],
    ),
    (
        "torch-npu-python",
        {"accelerator": ASCEND, "torch_npu": "2.5.1", "python": "3.12"},
        "ascend.python",
        X,
        ["3.12", "3.11"],
    ),
    (
        "torch-npu-python-ok",
        {"accelerator": ASCEND, "torch_npu": "2.12.0", "python": "3.14"},
        "ascend.python",
        C,
        [],
    ),
    (
        "cuda-torch-with-torch-npu",
        {"accelerator": ASCEND, "torch_npu": "2.4.0", "torch": "2.4.0+cu121"},
        "torch.build",
        X,
        ["+cpu"],
    ),
]


@pytest.mark.parametrize(
    ("stack", "rule", "expected", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_gaudi_and_ascend_rule(judge, stack, rule, expected, needles) -> None:
    judged = judge(stack)
    assert judged.verdict(rule) is expected, judged.dump()
    for needle in needles:
        assert needle in judged.message(rule), judged.dump()
