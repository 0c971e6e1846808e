"""`check()`: judge one software stack against the matrix. Pure: same input, same report.

The date the lifecycle rules use is, in order: the `as_of` argument (the CLI's `--as-of`), the
stack's own `as_of` key, today.

`strict=True` turns `conditional` (runs only under a documented limitation) and "not in the
matrix" findings into `incompatible`: a strict gate passes only what the data proves. Lifecycle
warnings stay warnings.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace

from accelplane.matrix.checks import ALL_CHECKS, Context
from accelplane.matrix.findings import MatrixFinding, MatrixReport, Verdict
from accelplane.matrix.loader import load
from accelplane.matrix.stack import parse_stack


def check(
    stack: Mapping[str, object],
    *,
    as_of: dt.date | None = None,
    strict: bool = False,
    origin: str = "<input>",
    lines: Mapping[str, int] | None = None,
) -> MatrixReport:
    """Judge `stack` (the flat keys of the `matrix check` contract).

    Raises `InputError` naming `origin`, the line (from `lines`, key -> line, when given) and the
    key for unknown keys, malformed versions, non-string values and unknown accelerators.
    """
    data = load()
    parsed = parse_stack(stack, origin=origin, lines=lines)
    context = Context(parsed, data, as_of or parsed.as_of or dt.date.today())
    for rule in ALL_CHECKS:
        rule(context)
    findings = context.findings
    if strict:
        findings = [_strict(finding) for finding in findings]
    findings = _dedupe(findings)
    findings.sort(key=lambda finding: (-finding.verdict.rank, finding.rule))
    return MatrixReport(
        verdict=Verdict.worst([finding.verdict for finding in findings]),
        findings=findings,
        stack=dict(parsed.raw),
        as_of=context.as_of,
        strict=strict,
        origin=origin,
    )


def _strict(finding: MatrixFinding) -> MatrixFinding:
    if finding.verdict is Verdict.CONDITIONAL:
        return replace(
            finding,
            verdict=Verdict.INCOMPATIBLE,
            message=f"{finding.message} [--strict: conditional is incompatible]",
        )
    if finding.not_in_matrix:
        return replace(
            finding,
            verdict=Verdict.INCOMPATIBLE,
            message=f"{finding.message} [--strict: unverified is incompatible]",
        )
    return finding


def _dedupe(findings: list[MatrixFinding]) -> list[MatrixFinding]:
    seen: set[tuple[str, str]] = set()
    out = []
    for finding in findings:
        key = (finding.rule, finding.message)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out
