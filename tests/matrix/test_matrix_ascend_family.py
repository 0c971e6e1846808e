"""Huawei Ascend 910 series (A2, A3 and the first generation) and the Atlas inference cards:
CANN <-> torch_npu <-> torch <-> Python per chip family."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict, accelerators, load

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE


def test_every_ascend_accelerator_has_a_chip_family() -> None:
    chips = {c.chip for c in load().ascend.chips}
    names = [n for n, f in accelerators().items() if f.vendor.value == "huawei"]
    assert {"huawei-ascend-910", "huawei-ascend-910b", "huawei-ascend-910c", "huawei-atlas-300i-duo"} <= set(names)
    for name in names:
        assert accelerators()[name].ascend_chip in chips, name


CASES = [
    ("a3-before-its-first-cann", {"accelerator": "huawei-ascend-910c", "cann": "7.0.0"}, "ascend.chip", X, ["8.0.0"]),
    ("a3-on-8.5.0", {"accelerator": "huawei-ascend-910c", "cann": "8.5.0"}, "ascend.chip", C, ["Atlas A3"]),
    ("a2-on-7.0.0", {"accelerator": "huawei-ascend-910b", "cann": "7.0.0"}, "ascend.chip", C, ["Atlas A2"]),
    (
        "atlas-300i-duo-stack",
        {"accelerator": "huawei-atlas-300i-duo", "cann": "8.5.0", "torch_npu": "2.8.0.post2", "torch": "2.8.0"},
        "ascend.cann",
        C,
        [],
    ),
    (
        "atlas-300i-duo-wrong-pair",
        {"accelerator": "huawei-atlas-300i-duo", "cann": "8.5.0", "torch_npu": "2.5.1"},
        "ascend.cann",
        X,
        ["8.1.RC1"],
    ),
    ("first-gen-910", {"accelerator": "huawei-ascend-910", "cann": "8.0.0"}, "ascend.chip", C, ["Atlas training"]),
]


@pytest.mark.parametrize(("case", "stack", "rule", "verdict", "words"), CASES, ids=[c[0] for c in CASES])
def test_ascend_family(judge, case, stack, rule, verdict, words) -> None:  # type: ignore[no-untyped-def]
    judged = judge(stack)
    assert judged.verdict(rule) is verdict, judged.dump()
    for word in words:
        assert word in judged.message(rule), judged.message(rule)


def test_the_a3_floor_is_marked_low_confidence() -> None:
    (chip,) = [c for c in load().ascend.chips if c.chip == "910c"]
    assert chip.confidence == "L" and chip.note
