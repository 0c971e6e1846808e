"""A migration's diff (`diff.migration_diff`) as a table (terminals, CI logs), JSON or Markdown (a pull-request
comment)."""

from __future__ import annotations

import json
from typing import Any

from accelplane.diff.migration_diff import MigrationDiff
from accelplane.diff.table import resource_lines


def _usd(value: float | None) -> str:
    return "unpriced" if value is None else f"${value:,.2f}"


def _weights(diff: MigrationDiff) -> list[str]:
    return [f"{label}: {diff.weights_before.get(label, 0)}% → {weight}%"
            for label, weight in diff.weights_after.items()]


def _verdict(diff: MigrationDiff) -> str:
    return "PASSED: one step, or none" if diff.passed else f"FAILED: {diff.step_problem}"


def render_table(diff: MigrationDiff) -> str:
    lines = [f"accelplane diff: migration {diff.stack}, base revision {diff.base_ref} ({diff.base_commit[:7]}) → "
             "working tree", "", f"Records: {len(diff.resources)} changed"]
    for resource in diff.resources:
        lines.extend(resource_lines(resource))
    lines += ["", "Weights:", *[f"  {line}" for line in _weights(diff)], "",
              f"Cost: both ends' service pools at the declared weight {_usd(diff.overlap_before)} → "
              f"{_usd(diff.overlap_after)} a month"]
    lines += [f"note: {note}" for note in diff.notes]
    return "\n".join([*lines, "", _verdict(diff)]) + "\n"


def to_json(diff: MigrationDiff) -> dict[str, Any]:
    return {"migration": diff.stack, "base": {"ref": diff.base_ref, "commit": diff.base_commit,
                                              "exists": diff.base_exists},
            "resources": [resource.to_json() for resource in diff.resources],
            "weights": {"before": diff.weights_before, "after": diff.weights_after},
            "cost": {"currency": "USD", "overlap_monthly_before": diff.overlap_before,
                     "overlap_monthly_after": diff.overlap_after},
            "step_problem": diff.step_problem, "passed": diff.passed, "notes": diff.notes}


def render_markdown(diff: MigrationDiff) -> str:
    lines = [f"### accelplane diff: migration `{diff.stack}` against `{diff.base_ref}`", "",
             "| end | weight |", "|---|---|", *[f"| {line.split(': ', 1)[0]} | {line.split(': ', 1)[1]} |"
                                               for line in _weights(diff)], "",
             f"Both ends' service pools at the declared weight: {_usd(diff.overlap_before)} → "
             f"{_usd(diff.overlap_after)} a month.", "",
             f"{len(diff.resources)} record{'s' if len(diff.resources) != 1 else ''} changed: "
             + (", ".join(f"`{r.name}` ({r.op})" for r in diff.resources) or "none") + ".",
             *[f"_{note}_" for note in diff.notes], "", f"**{_verdict(diff)}**"]
    return "\n".join(lines) + "\n"


FORMATS = {"table": render_table, "markdown": render_markdown,
           "json": lambda diff: json.dumps(to_json(diff), indent=2, sort_keys=True) + "\n"}
