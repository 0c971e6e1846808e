"""JSON: `{"findings": [...], "summary": {..., "tool", "version", "reportSchemaVersion"}}` (docs/design.md
`check` contract)."""

from __future__ import annotations

import json

from accelplane.report.document import Report
from accelplane.tool import report_header


def render_json(report: Report) -> str:
    # The contract's two keys; the tool's name and versions go in the summary, an open object.
    summary = {**report.summary(), **report_header()}
    return json.dumps({"findings": [i.to_json() for i in report.items], "summary": summary},
                      indent=2, sort_keys=False) + "\n"
