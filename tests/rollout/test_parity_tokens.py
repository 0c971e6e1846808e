"""The generated tokens a completions server reports (`usage.completion_tokens`, OpenAI's completions
answer; vLLM and TGI answer the same field) are what parity's throughput counts tokens by; an answer
without a usable count gives none, so a figure is never half-counted."""

from __future__ import annotations

import pytest

from accelplane.declaration import Parity
from accelplane.rollout.parity import protocol

COMPLETIONS = Parity.model_validate({"protocol": "openai-completions", "model": "llm",
                                     "golden": {"uri": "parity/golden.jsonl"}, "compare": {"kind": "text"},
                                     "reports": "parity/reports"})
INFERENCE = Parity.model_validate({"protocol": "open-inference", "model": "classifier",
                                   "golden": {"uri": "parity/golden.jsonl"}, "compare": {"kind": "classification"},
                                   "reports": "parity/reports"})


@pytest.mark.parametrize(("answer", "count"), [
    ({"choices": [{"text": " a b"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}, 2),
    ({"choices": [{"text": " a b"}]}, None),  # the server reports no usage
    ({"choices": [], "usage": {"completion_tokens": True}}, None),  # not a count
    ({"choices": [], "usage": {"completion_tokens": -1}}, None),
    ({"choices": [], "usage": "2"}, None),
])
def test_completion_tokens_come_from_the_answers_usage(answer: dict, count: int | None) -> None:
    assert protocol.output_tokens(COMPLETIONS, answer) == count


def test_an_inference_protocol_answer_has_no_tokens() -> None:
    assert protocol.output_tokens(INFERENCE, {"outputs": [{"data": [1.0]}], "usage": {"completion_tokens": 4}}) is None
