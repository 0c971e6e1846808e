"""Compare the canary's outputs with the golden set's, request by request, per output kind.

- numeric: per request the largest |canary - baseline| relative to the baseline's largest |value|,
  the cosine similarity and (if set) the largest absolute error; for each bound, the share of
  requests within it must reach `pass_fraction`;
- classification: the share of requests whose top class agrees, and the mean overlap of the top-k
  classes;
- text: the share of identical greedy completions, and the mean share of leading whitespace tokens
  that agree before the first difference.

Each `Check` holds the observed value and its limit, so a report says by how much a verdict was
reached; `worst` names the requests that differ most, for the reviewer to look at first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from accelplane.declaration import OutputKind, ParityCompare

WORST = 5


@dataclass(frozen=True)
class Check:
    name: str
    observed: float
    limit: float
    at_least: bool  # True: observed must be >= limit; False: <= limit

    @property
    def passed(self) -> bool:
        return self.observed >= self.limit if self.at_least else self.observed <= self.limit

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "observed": round(self.observed, 9), "limit": self.limit,
                "bound": "min" if self.at_least else "max", "passed": self.passed}


@dataclass(frozen=True)
class Difference:
    id: str
    detail: str
    score: float  # larger: further from the baseline


@dataclass
class Comparison:
    checks: list[Check] = field(default_factory=list)
    worst: list[Difference] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # outputs that could not be compared at all

    @property
    def passed(self) -> bool:
        return not self.problems and all(check.passed for check in self.checks)


class ShapeError(ValueError):
    """An output that is not of the declared kind (a list of numbers, or text)."""


def _numbers(value: Any, what: str) -> list[float]:
    if not isinstance(value, list) or not value or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        raise ShapeError(f"{what}: expected a non-empty list of numbers")
    return [float(v) for v in value]


def compare(settings: ParityCompare, ids: Sequence[str], expected: Sequence[Any], actual: Sequence[Any]) -> Comparison:
    assert len(ids) == len(expected) == len(actual)
    if settings.kind is OutputKind.text:
        return _text(settings, ids, expected, actual)
    pairs: list[tuple[str, list[float], list[float]]] = []
    result = Comparison()
    for request, want, got in zip(ids, expected, actual, strict=True):
        try:
            ref, out = _numbers(want, f"{request}: the golden output"), _numbers(got, f"{request}: the canary's output")
        except ShapeError as error:
            result.problems.append(str(error))
            continue
        if len(ref) != len(out):
            result.problems.append(f"{request}: {len(out)} values, the golden output has {len(ref)}")
            continue
        pairs.append((request, ref, out))
    if not pairs:
        result.problems.append("no request could be compared")
        return result
    if settings.kind is OutputKind.classification:
        _classification(settings, pairs, result)
    else:
        _numeric(settings, pairs, result)
    return result


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else (1.0 if a == b else 0.0)


def _numeric(settings: ParityCompare, pairs: list[tuple[str, list[float], list[float]]], result: Comparison) -> None:
    """One check per bound: the share of requests within it must reach `pass_fraction`."""
    bounds = settings.numeric
    within = {"relative": 0, "cosine": 0, "absolute": 0}
    differences = []
    for request, ref, out in pairs:
        largest = max(abs(v) for v in ref)
        error = max(abs(x - y) for x, y in zip(out, ref, strict=True))
        relative = error / largest if largest else error
        cosine = _cosine(ref, out)
        within["relative"] += relative <= bounds.max_relative_error
        within["cosine"] += cosine >= bounds.min_cosine
        within["absolute"] += bounds.max_abs_error is None or error <= bounds.max_abs_error
        differences.append(Difference(request, f"relative error {relative:.3g}, cosine {cosine:.6f}, "
                                      f"largest abs error {error:.3g}", relative))
    count = len(pairs)
    result.checks += [
        Check(f"requests with relative error <= {bounds.max_relative_error:g}", within["relative"] / count,
              settings.pass_fraction, True),
        Check(f"requests with cosine similarity >= {bounds.min_cosine:g}", within["cosine"] / count,
              settings.pass_fraction, True),
    ]
    if bounds.max_abs_error is not None:
        result.checks.append(Check(f"requests with abs error <= {bounds.max_abs_error:g}", within["absolute"] / count,
                                   settings.pass_fraction, True))
    result.worst = sorted(differences, key=lambda d: -d.score)[:WORST]


def _top(values: list[float], k: int) -> list[int]:
    return sorted(range(len(values)), key=lambda i: (-values[i], i))[:k]


def _classification(settings: ParityCompare, pairs: list[tuple[str, list[float], list[float]]],
                    result: Comparison) -> None:
    tolerance = settings.classification
    agree, overlap_sum = 0, 0.0
    differences = []
    for request, ref, out in pairs:
        k = min(tolerance.top_k, len(ref))
        want, got = _top(ref, k), _top(out, k)
        same_top = want[0] == got[0]
        overlap = len(set(want) & set(got)) / k
        agree += same_top
        overlap_sum += overlap
        if not same_top or overlap < 1:
            differences.append(Difference(request, f"top-1 {got[0]} (golden {want[0]}), top-{k} overlap "
                                          f"{overlap:.0%}", (0 if same_top else 1) + (1 - overlap)))
    result.checks += [
        Check("top-1 agreement", agree / len(pairs), tolerance.min_top1_agreement, True),
        Check(f"top-{tolerance.top_k} overlap", overlap_sum / len(pairs), tolerance.min_top_k_overlap, True),
    ]
    result.worst = sorted(differences, key=lambda d: -d.score)[:WORST]


def _leading_agreement(a: str, b: str) -> float:
    left, right = a.split(), b.split()
    if not left and not right:
        return 1.0
    same = 0
    for x, y in zip(left, right, strict=False):
        if x != y:
            break
        same += 1
    return same / max(len(left), len(right))


def _text(settings: ParityCompare, ids: Sequence[str], expected: Sequence[Any], actual: Sequence[Any]) -> Comparison:
    result = Comparison()
    exact, agreement_sum, counted = 0, 0.0, 0
    differences = []
    for request, want, got in zip(ids, expected, actual, strict=True):
        if not isinstance(want, str) or not isinstance(got, str):
            result.problems.append(f"{request}: expected text outputs")
            continue
        counted += 1
        agreement = _leading_agreement(want, got)
        exact += want == got
        agreement_sum += agreement
        if want != got:
            differences.append(Difference(request, f"{agreement:.0%} of leading tokens agree: {got[:80]!r} "
                                          f"(golden {want[:80]!r})", 1 - agreement))
    if not counted:
        result.problems.append("no request could be compared")
        return result
    tolerance = settings.text
    result.checks += [
        Check("exact match", exact / counted, tolerance.min_exact_match, True),
        Check("token agreement", agreement_sum / counted, tolerance.min_token_agreement, True),
    ]
    result.worst = sorted(differences, key=lambda d: -d.score)[:WORST]
    return result
