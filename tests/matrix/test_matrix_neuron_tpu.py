"""AWS Neuron and Google TPU rules."""

from __future__ import annotations

import pytest

from accelplane.matrix import Verdict

C, W, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.INCOMPATIBLE
TRN1, TRN2, INF2 = "aws-trainium", "aws-trainium2", "aws-inferentia2"
V5E = "google-tpu-v5e"

CASES = [
    # --- Neuron SDK vs instance family ------------------------------------------------------------
    (
        "trn2-needs-sdk-2.21",
        {"accelerator": TRN2, "neuron_sdk": "2.20.2"},
        "neuron.sdk",
        X,
        ["trn2", "2.21.0"],
    ),
    ("trn2-on-sdk-2.21", {"accelerator": TRN2, "neuron_sdk": "2.21.0"}, "neuron.sdk", C, []),
    (
        "sdk-newer-than-data",
        {"accelerator": TRN1, "neuron_sdk": "2.40.0"},
        "neuron.sdk",
        W,
        ["not in the matrix"],
    ),
    # --- torch-neuronx vs SDK, instance, Python; torch vs torch-neuronx ---------------------------
    (
        "torch-neuronx-1.13-not-on-trn2",
        {"accelerator": TRN2, "neuron_sdk": "2.21.0", "torch_neuronx": "1.13.1.1.17.0"},
        "neuron.torch-neuronx",
        X,
        ["trn1", "trn2"],
    ),
    (
        "torch-neuronx-of-the-sdk",
        {"accelerator": INF2, "neuron_sdk": "2.21.0", "torch_neuronx": "2.5.1.2.4.0"},
        "neuron.torch-neuronx",
        C,
        [],
    ),
    (
        "torch-neuronx-of-another-sdk",
        {"accelerator": TRN1, "neuron_sdk": "2.22.0", "torch_neuronx": "2.5.1.2.4.0"},
        "neuron.torch-neuronx",
        X,
        ["2.5.1.2.6.0"],
    ),
    (
        "sdk-2.32-ships-no-torch-neuronx",
        {"accelerator": TRN1, "neuron_sdk": "2.32.0", "torch_neuronx": "2.9.0.2.15.32035"},
        "neuron.torch-neuronx",
        X,
        ["no torch-neuronx"],
    ),
    (
        "sdk-2.33-torch-neuronx-trn2-only",
        {"accelerator": TRN1, "neuron_sdk": "2.33.0", "torch_neuronx": "2.13.0.1.0.100"},
        "neuron.torch-neuronx",
        X,
        ["trn2"],
    ),
    (
        "sdk-2.33-on-trn2",
        {"accelerator": TRN2, "neuron_sdk": "2.33.0", "torch_neuronx": "2.13.0.1.0.100"},
        "neuron.torch-neuronx",
        C,
        [],
    ),
    (
        "torch-neuronx-python",
        {"accelerator": TRN1, "neuron_sdk": "2.21.0", "torch_neuronx": "2.5.1.2.4.0", "python": "3.13"},
        "neuron.torch-neuronx",
        X,
        ["3.13", "3.11"],
    ),
    (
        "torch-must-match-torch-neuronx",
        {"accelerator": TRN1, "torch_neuronx": "2.5.1.2.4.0", "torch": "2.6.0"},
        "neuron.torch",
        X,
        ["2.5.1", "2.6.0"],
    ),
    (
        "torch-matches-torch-neuronx",
        {"accelerator": TRN1, "torch_neuronx": "2.5.1.2.4.0", "torch": "2.5.1"},
        "neuron.torch",
        C,
        [],
    ),
    (
        "neuron-torch-xla",
        {"accelerator": TRN2, "neuron_sdk": "2.31.1", "torch_xla": "2.12.0"},
        "neuron.torch-xla",
        C,
        [],
    ),
    (
        "neuron-torch-xla-not-in-sdk",
        {"accelerator": TRN2, "neuron_sdk": "2.31.1", "torch_xla": "2.9.0"},
        "neuron.torch-xla",
        X,
        ["2.10.0"],
    ),
    # --- TPU --------------------------------------------------------------------------------------
    ("runtime-of-v5e", {"accelerator": V5E, "tpu_runtime": "v2-alpha-tpuv5-lite"}, "tpu.runtime", C, []),
    (
        "runtime-of-v5p-on-v5e",
        {"accelerator": V5E, "tpu_runtime": "v2-alpha-tpuv5"},
        "tpu.runtime",
        X,
        ["v2-alpha-tpuv5-lite"],
    ),
    ("jaxlib-in-range", {"accelerator": V5E, "jax": "0.4.31", "jaxlib": "0.4.30"}, "tpu.jax", C, []),
    (
        "jaxlib-must-equal-jax",
        {"accelerator": V5E, "jax": "0.6.2", "jaxlib": "0.6.1"},
        "tpu.jax",
        X,
        ["0.6.2", "0.6.1"],
    ),
    (
        "jax-0.7-needs-python-3.11",
        {"accelerator": V5E, "jax": "0.7.0", "python": "3.10"},
        "tpu.jax",
        X,
        ["3.11", "0.6.2"],
    ),
    ("jax-newer-than-data", {"accelerator": V5E, "jax": "0.11.0"}, "tpu.jax", W, ["not in the matrix"]),
    ("libtpu-series-pin", {"accelerator": V5E, "jax": "0.6.2", "libtpu": "0.0.17.1"}, "tpu.libtpu", C, []),
    (
        "libtpu-of-another-jax",
        {"accelerator": V5E, "jax": "0.6.2", "libtpu": "0.0.15"},
        "tpu.libtpu",
        X,
        ["0.0.17.*", "0.0.15"],
    ),
    (
        "libtpu-nightly-pin",
        {"accelerator": "google-tpu-v5p", "jax": "0.4.31", "libtpu": "0.1.dev20240729"},
        "tpu.libtpu",
        C,
        ["libtpu-nightly"],
    ),
    (
        "torch-xla-pairs-with-torch",
        {"accelerator": "google-tpu-v6e", "torch_xla": "2.8.1", "torch": "2.8.0"},
        "tpu.torch-xla",
        C,
        [],
    ),
    (
        "torch-xla-of-another-torch",
        {"accelerator": "google-tpu-v6e", "torch_xla": "2.8.0", "torch": "2.7.1"},
        "tpu.torch-xla",
        X,
        ["2.8", "2.7.1"],
    ),
    (
        "torch-xla-python",
        {"accelerator": "google-tpu-v6e", "torch_xla": "2.5.1", "python": "3.12"},
        "tpu.torch-xla",
        X,
        ["3.12"],
    ),
    (
        "torch-xla-libtpu",
        {"accelerator": "google-tpu-v6e", "torch_xla": "2.9.0", "libtpu": "0.0.17"},
        "tpu.libtpu",
        X,
        ["0.0.21"],
    ),
]


@pytest.mark.parametrize(
    ("stack", "rule", "expected", "needles"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_neuron_and_tpu_rule(judge, stack, rule, expected, needles) -> None:
    judged = judge(stack)
    assert judged.verdict(rule) is expected, judged.dump()
    for needle in needles:
        assert needle in judged.message(rule), judged.dump()


def test_neuron_profile_from_the_prod_stack_is_compatible(judge) -> None:
    judged = judge(
        {
            "accelerator": TRN1,
            "instance": "trn1.32xlarge",
            "os": "amazon-linux-2023",
            "python": "3.11",
            "neuron_sdk": "2.31.1",
            "torch_neuronx": "2.9.0.2.15.32035",
            "torch": "2.9.0",
            "efa_installer": "1.43.2",
        }
    )
    assert judged.report.verdict is C, judged.dump()
