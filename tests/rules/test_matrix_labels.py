"""Node pool labels read back as the version matrix's stack (accelplane.rules.matrix.labels)."""

from __future__ import annotations

from accelplane.matrix import MATRIX_KEYS as CONTRACT_KEYS
from accelplane.rules.matrix.labels import MATRIX_KEYS, judge, matrix_stack
from tests.rules.cases import node_group


def test_every_contract_key_but_accelerator_and_as_of_is_read_from_labels() -> None:
    assert CONTRACT_KEYS - {"accelerator", "as_of"} == MATRIX_KEYS
    assert "torch_neuron" in MATRIX_KEYS


def test_an_inf1_pool_is_judged_on_its_torch_neuron_label() -> None:
    # torch-neuron 1.13.1.2.11.13.0 is not part of Neuron SDK 2.20.0 (tests/matrix/test_matrix_inferentia1.py):
    # a label the rules dropped would leave the pool judged compatible.
    pool = node_group("infer-inf1", accelerator="aws-inferentia", instance="inf1.xlarge", versions={
        "versions.accelplane.io/neuron-sdk": "2.20.0", "versions.accelplane.io/torch-neuron": "1.13.1.2.11.13.0"})
    stack = matrix_stack(pool)
    assert stack is not None and stack["torch_neuron"] == "1.13.1.2.11.13.0"
    verdict, findings = judge(stack, None)
    assert verdict == "incompatible"
    assert any(rule == "neuron.torch-neuron" and "not part of Neuron SDK 2.20.0" in message
               for rule, _, message in findings), findings
