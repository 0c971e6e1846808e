"""The tool's own identity in everything it writes: its name, its installed version (pyproject.toml,
typed once there), and the version of the JSON report layout, which changes when a report's keys
change meaning (tools reading reports pin it)."""

from __future__ import annotations

from functools import cache
from importlib import metadata

TOOL = "accelplane"
REPORT_SCHEMA_VERSION = 1


@cache
def version() -> str:
    """The installed distribution's version; `0+unknown` when the package is not installed."""
    try:
        return metadata.version(TOOL)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def report_header() -> dict[str, object]:
    """What every JSON report opens with."""
    return {"tool": TOOL, "version": version(), "reportSchemaVersion": REPORT_SCHEMA_VERSION}
