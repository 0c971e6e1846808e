"""JSON: `{"findings": [...], "summary": {...}}` (docs/design.md `check` contract)."""

from __future__ import annotations

import json

from accelplane.report.document import Report


def render_json(report: Report) -> str:
    return json.dumps({"findings": [i.to_json() for i in report.items], "summary": report.summary()},
                      indent=2, sort_keys=False) + "\n"
