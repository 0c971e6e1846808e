"""`check()` as an API: verdict ordering, --strict, as_of, JSON shape, input errors, platform rules."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from accelplane.errors import InputError
from accelplane.matrix import MatrixFinding, Verdict, check

C, W, D, X = Verdict.COMPATIBLE, Verdict.WARN, Verdict.CONDITIONAL, Verdict.INCOMPATIBLE
AS_OF = dt.date(2026, 12, 2)

PROD_H100 = {
    "accelerator": "nvidia-hgx-h100-8gpu",
    "instance": "p5.48xlarge",
    "os": "amazon-linux-2023",
    "python": "3.11",
    "driver": "570.172.08",
    "kernel_module": "open",
    "fabric_manager": "570.172.08",
    "cuda": "12.8",
    "cudnn": "9.10.2.21",
    "nccl": "2.27.3",
    "nccl_package": "nvidia-nccl-cu12",
    "torch": "2.8.0",
    "efa_installer": "1.43.2",
    "aws_ofi_nccl": "1.16.3",
}


def test_verdict_order_is_compatible_warn_conditional_incompatible() -> None:
    assert [v.rank for v in (C, W, D, X)] == [0, 1, 2, 3]
    assert Verdict.worst([C, D, W]) is D
    assert Verdict.worst([]) is C


def test_a_realistic_training_profile_is_compatible() -> None:
    report = check(PROD_H100, as_of=AS_OF)
    assert report.verdict is C, [f.message for f in report.problems()]
    assert not report.blocking
    rules = {f.rule for f in report.findings}
    assert {
        "nvidia.cuda-driver",
        "nvidia.fabric-manager",
        "torch.nccl-pin",
        "nccl.aws-ofi-nccl",
        "stack.instance",
    } <= rules


def test_the_worst_finding_decides_and_comes_first() -> None:
    stack = {**PROD_H100, "fabric_manager": "570.158.01", "driver": "570.172.08"}
    report = check(stack, as_of=AS_OF)
    assert report.verdict is X and report.blocking
    assert report.findings[0].verdict is X
    ranks = [f.verdict.rank for f in report.findings]
    assert ranks == sorted(ranks, reverse=True)


def test_strict_turns_conditional_into_incompatible() -> None:
    stack = {"accelerator": "nvidia-h100", "driver": "535.104.05", "cuda": "12.4"}
    assert check(stack, as_of=dt.date(2026, 1, 1)).verdict is D
    strict = check(stack, as_of=dt.date(2026, 1, 1), strict=True)
    assert strict.verdict is X and strict.blocking
    assert "--strict" in strict.findings[0].message


def test_strict_turns_not_in_the_matrix_into_incompatible_but_keeps_lifecycle_warnings() -> None:
    unknown = {"accelerator": "nvidia-h100", "torch": "2.16.0"}
    assert check(unknown, as_of=AS_OF).verdict is W
    assert check(unknown, as_of=AS_OF, strict=True).verdict is X
    eol = {"accelerator": "nvidia-h100", "driver": "535.261.03"}
    assert check(eol, as_of=AS_OF, strict=True).verdict is W


def test_as_of_argument_beats_the_stack_key_which_beats_today() -> None:
    stack = {"accelerator": "nvidia-h100", "driver": "535.261.03", "as_of": "2026-01-15"}
    assert check(stack).verdict is C  # the stack's date: R535 still supported
    assert check(stack).as_of == dt.date(2026, 1, 15)
    assert check(stack, as_of=AS_OF).verdict is W
    assert check({**stack, "as_of": dt.date(2026, 7, 1)}).verdict is W  # an unquoted YAML date


def test_check_is_pure() -> None:
    first = check(PROD_H100, as_of=AS_OF)
    second = check(dict(PROD_H100), as_of=AS_OF)
    assert first.to_json() == second.to_json()


def test_json_has_exactly_the_design_shape() -> None:
    document = json.loads(check(PROD_H100, as_of=AS_OF).to_json_text())
    assert set(document) == {"verdict", "findings"}
    assert document["verdict"] in {"compatible", "conditional", "incompatible", "warn"}
    for finding in document["findings"]:
        assert set(finding) == {"rule", "verdict", "message", "source"}
        assert finding["source"]


def test_findings_name_the_keys_they_judge() -> None:
    report = check({"accelerator": "nvidia-h100", "driver": "470.82.01", "cuda": "12.4"}, as_of=AS_OF)
    finding = next(f for f in report.findings if f.rule == "nvidia.cuda-driver")
    assert isinstance(finding, MatrixFinding) and {"cuda", "driver"} <= set(finding.fields)


def test_verdicts_compare_as_plain_strings() -> None:
    report = check({"accelerator": "nvidia-h100", "driver": "470.82.01", "cuda": "12.4"}, as_of=AS_OF)
    assert report.verdict == "incompatible"


# --- platform rules ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("stack", "rule", "expected"),
    [
        ({"accelerator": "nvidia-hgx-h100-8gpu", "instance": "p5.48xlarge"}, "stack.instance", C),
        (
            {"accelerator": "nvidia-l4", "instance": "g6e.2xlarge"},
            "stack.instance",
            X,
        ),  # a g6e carries an L40S
        ({"accelerator": "aws-trainium", "instance": "trn2.48xlarge"}, "stack.instance", X),
        ({"accelerator": "nvidia-l4", "instance": "m7i.2xlarge"}, "stack.instance", W),
        ({"accelerator": "amd-mi300x", "cuda": "12.8"}, "stack.vendor-keys", X),
        ({"accelerator": "nvidia-h100", "rocm": "6.3.3"}, "stack.vendor-keys", X),
        ({"accelerator": "nvidia-h100", "libtpu": "0.0.17"}, "stack.vendor-keys", X),
        ({"accelerator": "nvidia-h100", "os": "ubuntu-22.04", "glibc": "2.31"}, "stack.glibc", W),
    ],
)
def test_platform_rules(stack, rule, expected) -> None:
    report = check(stack, as_of=AS_OF)
    verdicts = [f.verdict for f in report.findings if f.rule == rule]
    assert verdicts and Verdict.worst(verdicts) is expected, [f.message for f in report.findings]


# --- input errors ------------------------------------------------------------------------------------
def _error(stack, **kwargs) -> InputError:
    with pytest.raises(InputError) as caught:
        check(stack, as_of=AS_OF, **kwargs)
    return caught.value


def test_unknown_key_is_an_input_error_with_a_suggestion() -> None:
    error = _error(
        {"accelerator": "nvidia-h100", "cuda_version": "12.8"}, origin="stack.yaml", lines={"cuda_version": 7}
    )
    problem = error.problems[0]
    assert (problem.file, problem.line, problem.field) == ("stack.yaml", 7, "cuda_version")
    assert "did you mean cuda" in problem.message
    assert str(error).startswith("error: stack.yaml:7: cuda_version: unknown key")


def test_malformed_version_is_an_input_error() -> None:
    error = _error({"accelerator": "nvidia-h100", "driver": "570.x"})
    assert error.problems[0].field == "driver" and "malformed version '570.x'" in error.problems[0].message


def test_unknown_accelerator_is_an_input_error_with_suggestions() -> None:
    error = _error({"accelerator": "nvidia-h1000"})
    assert "unknown accelerator" in str(error) and "nvidia-h100" in str(error)


def test_missing_accelerator_is_an_input_error() -> None:
    assert "missing" in str(_error({"cuda": "12.8"}))


@pytest.mark.parametrize("value", [3.1, 12, True])
def test_numbers_are_refused_because_yaml_changes_them(value) -> None:
    error = _error({"accelerator": "nvidia-h100", "python": value})
    assert "quote it" in str(error)


@pytest.mark.parametrize(
    ("key", "value", "needle"),
    [
        ("os", "ubuntu", "malformed os"),
        ("os", "windows-11", "unknown distribution"),
        ("kernel_module", "closed", "open or proprietary"),
        ("nccl_package", "nccl2", "malformed nccl_package"),
        ("compat_package", "compat", "malformed compat_package"),
        ("gpu_target", "mi300", "LLVM target"),
        ("as_of", "yesterday", "YYYY-MM-DD"),
        ("python", "2.7", "CPython 3"),
        ("torch", "", "empty value"),
    ],
)
def test_malformed_special_values_are_input_errors(key, value, needle) -> None:
    error = _error({"accelerator": "nvidia-h100", key: value})
    assert error.problems[0].field == key and needle in error.problems[0].message


def test_all_problems_are_reported_at_once() -> None:
    error = _error({"accelerator": "nvidia-h100", "driver": "x", "cuda": "y", "bogus": "1"})
    assert {p.field for p in error.problems} == {"driver", "cuda", "bogus"}


def test_a_non_mapping_is_an_input_error() -> None:
    with pytest.raises(InputError, match="expected a mapping"):
        check(["accelerator", "nvidia-h100"], as_of=AS_OF)  # type: ignore[arg-type]
