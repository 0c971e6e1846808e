"""The hidden `--now` of commands that judge time windows (rollout's bake and gates, cost idle's
utilisation windows): a UTC instant, so tests and reruns read the metrics as of a chosen moment
instead of the wall clock."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime


def instant(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a UTC time like 2026-12-03T06:00:00Z (got {text!r})") from None
    offset = moment.utcoffset()
    if offset is None or offset.total_seconds() != 0:
        raise argparse.ArgumentTypeError(f"expected a UTC time ending in Z (got {text!r})")
    return moment.astimezone(UTC)
