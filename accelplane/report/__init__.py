"""Reports: one result model, five formats (table, JSON, SARIF 2.1.0, JUnit XML, Markdown).

Format-agnostic on purpose: `accelplane check` fills a `Report` from rule findings today; a
`verify` command fills it from its own checks and gets the same five outputs.
"""

from __future__ import annotations

from collections.abc import Callable

from accelplane.report.document import Item, Report, RuleInfo
from accelplane.report.json_format import render_json
from accelplane.report.junit import render_junit
from accelplane.report.markdown import render_markdown
from accelplane.report.sarif import render_sarif
from accelplane.report.table import render_table

FORMATS: dict[str, Callable[[Report], str]] = {
    "table": render_table,
    "json": render_json,
    "sarif": render_sarif,
    "junit": render_junit,
    "markdown": render_markdown,
}


def render(report: Report, fmt: str) -> str:
    return FORMATS[fmt](report)


__all__ = ["FORMATS", "Item", "Report", "RuleInfo", "render"]
