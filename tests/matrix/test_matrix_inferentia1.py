"""Inferentia1 (inf1): its own SDK line, torch-neuron 1.x, separate from torch-neuronx."""

from __future__ import annotations

import pytest

from accelplane.declaration import SoftwareProfile
from accelplane.matrix import Verdict, check

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
INF1 = "aws-inferentia"

CASES = [
    (
        "inf1-with-torch-neuronx",
        {"accelerator": INF1, "neuron_sdk": "2.20.0", "torch_neuronx": "2.1.2.2.3.0"},
        "neuron.product-line",
        X,
        ["torch-neuron", "torch_neuron"],
    ),
    (
        "inf1-with-torch-neuron",
        {"accelerator": INF1, "neuron_sdk": "2.20.0", "torch_neuron": "1.13.1.2.11.7.0", "python": "3.10"},
        "neuron.torch-neuron",
        C,
        ["2.20.0"],
    ),
    (
        "inf1-torch-neuron-of-another-sdk",
        {"accelerator": INF1, "neuron_sdk": "2.20.0", "torch_neuron": "1.13.1.2.11.13.0"},
        "neuron.torch-neuron",
        X,
        ["not part of Neuron SDK 2.20.0"],
    ),
    (
        "inf1-torch-neuron-python",
        {"accelerator": INF1, "neuron_sdk": "2.22.0", "torch_neuron": "1.13.1.2.11.13.0", "python": "3.8"},
        "neuron.torch-neuron",
        X,
        ["3.9, 3.10"],
    ),
    (
        "inf1-torch-pairing",
        {"accelerator": INF1, "torch_neuron": "1.13.1.2.11.13.0", "torch": "2.1.2"},
        "neuron.torch",
        X,
        ["1.13.1"],
    ),
    (
        "inf1-torch-paired",
        {"accelerator": INF1, "torch_neuron": "1.12.1.2.11.7.0", "torch": "1.12.1"},
        "neuron.torch",
        C,
        [],
    ),
    (
        "inf1-driver-dropped-in-2.27",
        {"accelerator": INF1, "neuron_sdk": "2.27.0"},
        "neuron.sdk",
        X,
        ["2.26.1"],
    ),
    ("inf1-on-2.26.1", {"accelerator": INF1, "neuron_sdk": "2.26.1"}, "neuron.sdk", C, []),
    (
        "trn1-with-torch-neuron",
        {"accelerator": "aws-trainium", "neuron_sdk": "2.20.0", "torch_neuron": "1.13.1.2.11.7.0"},
        "neuron.product-line",
        X,
        ["torch_neuronx"],
    ),
]


@pytest.mark.parametrize(("case", "stack", "rule", "verdict", "words"), CASES, ids=[c[0] for c in CASES])
def test_inferentia1(judge, case, stack, rule, verdict, words) -> None:  # type: ignore[no-untyped-def]
    judged = judge(stack)
    assert judged.verdict(rule) is verdict, judged.dump()
    for word in words:
        assert word in judged.message(rule), judged.message(rule)


def test_inf1_with_torch_neuronx_is_incompatible_overall(judge) -> None:  # type: ignore[no-untyped-def]
    judged = judge({"accelerator": INF1, "neuron_sdk": "2.20.0", "torch_neuronx": "2.1.2.2.3.0"})
    assert judged.report.verdict is X
    assert judged.findings("neuron.torch-neuronx") == []  # one finding says why, not two


def test_torch_neuron_is_a_profile_field_and_reaches_the_matrix() -> None:
    profile = SoftwareProfile.model_validate({"torch_neuron": "1.13.1.2.11.13.0", "neuron_sdk": "2.26.1"})
    stack = profile.matrix_stack("aws-inferentia")
    assert stack["torch_neuron"] == "1.13.1.2.11.13.0"
    assert check(stack).verdict is not X
