"""The parity comparisons at their thresholds, the golden-set parser's errors, and the pin written
into a block-style stack file."""

from __future__ import annotations

import pytest

from accelplane.declaration import ParityCompare
from accelplane.errors import InputError
from accelplane.rollout.parity.compare import compare
from accelplane.rollout.parity.golden import parse_golden, parse_requests, sha256

IDS = [f"r{i}" for i in range(100)]


def _numeric(**bounds) -> ParityCompare:
    return ParityCompare.model_validate({"kind": "numeric", **bounds})


def test_numeric_relative_error_at_its_bound():
    ref = [[1.0, -2.0, 4.0]] * 100
    within = [[1.0, -2.0, 4.0 + 0.079]] * 100  # 0.079 / 4: just inside the default 0.02
    beyond = [[1.0, -2.0, 4.0 + 0.081]] * 100
    assert compare(_numeric(), IDS, ref, within).passed
    result = compare(_numeric(), IDS, ref, beyond)
    assert not result.passed and result.worst[0].id == "r0"


def test_cosine_alone_would_pass_a_broken_output_the_relative_error_catches():
    ref = [[1.0, 0.5, 0.25, 0.1]] * 100
    broken = [[1.0, 0.5, 0.1, 0.25]] * 100  # two values swapped: cosine 0.98
    result = compare(_numeric(numeric={"min_cosine": 0.98}), IDS, ref, broken)
    checks = {c.name: c for c in result.checks}
    assert checks["requests with cosine similarity >= 0.98"].passed
    assert not checks["requests with relative error <= 0.02"].passed


def test_pass_fraction_counts_requests_within_every_bound():
    ref = [[1.0, 2.0]] * 100
    out = [[1.0, 2.0]] * 98 + [[1.0, 3.0]] * 2
    assert compare(_numeric(pass_fraction=0.98), IDS, ref, out).passed
    assert not compare(_numeric(pass_fraction=0.99), IDS, ref, out).passed


def test_classification_top1_and_topk():
    settings = ParityCompare.model_validate({"kind": "classification", "classification": {"top_k": 2}})
    ref = [[0.9, 0.5, 0.1]] * 100
    flipped = [[0.5, 0.9, 0.1]] * 5 + [[0.9, 0.5, 0.1]] * 95  # 95% top-1, top-2 sets identical
    assert compare(settings, IDS, ref, flipped).passed
    more = [[0.5, 0.9, 0.1]] * 6 + [[0.9, 0.5, 0.1]] * 94
    result = compare(settings, IDS, ref, more)
    assert [c.name for c in result.checks if not c.passed] == ["top-1 agreement"]


def test_text_exact_match_and_token_agreement():
    settings = ParityCompare.model_validate({"kind": "text", "text": {"min_exact_match": 0.9,
                                                                      "min_token_agreement": 0.95}})
    ref = ["the cat sat on the mat"] * 100
    out = ["the cat sat on the mat"] * 90 + ["the cat sat on a mat"] * 10  # 4 of 6 leading tokens agree
    result = compare(settings, IDS, ref, out)
    checks = {c.name: c for c in result.checks}
    assert checks["exact match"].passed and checks["token agreement"].observed == pytest.approx(0.9667, abs=1e-3)
    assert result.passed


def test_outputs_of_the_wrong_shape_are_problems_not_passes():
    result = compare(_numeric(), ["a", "b"], [[1.0, 2.0], [1.0]], [[1.0], "text"])
    assert not result.passed and len(result.problems) == 3


GOLDEN = b'{"accelplane_golden": 1}\n{"id": "a", "request": {}, "output": [1]}\n'


def test_golden_set_errors_name_file_and_line():
    with pytest.raises(InputError) as error:
        parse_golden(GOLDEN + b'{"id": "a", "request": {}, "output": [2]}\n', "g.jsonl", expect_sha256=None)
    assert "g.jsonl:3" in str(error.value) and "repeats line 2" in str(error.value)
    with pytest.raises(InputError) as error:
        parse_golden(b'{"id": "a"}\n', "g.jsonl", expect_sha256=None)
    assert "accelplane_golden" in str(error.value)
    with pytest.raises(InputError) as error:
        parse_golden(GOLDEN, "g.jsonl", expect_sha256="0" * 64)
    assert "SHA-256" in str(error.value)
    assert parse_golden(GOLDEN, "g.jsonl", expect_sha256=sha256(GOLDEN)).requests[0].output == [1]
    with pytest.raises(InputError) as error:
        parse_requests(b'{"id": "a", "request": []}\n', "q.jsonl")
    assert "q.jsonl:1" in str(error.value) and "request" in str(error.value)


@pytest.mark.parametrize("value", [{"kind": "numeric", "pass_fraction": 0}, {"kind": "classification",
                                   "classification": {"min_top1_agreement": 1.5}}, {"kind": "embedding"}])
def test_tolerances_out_of_range_are_refused(value):
    with pytest.raises(ValueError):
        ParityCompare.model_validate(value)
