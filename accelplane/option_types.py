"""Types of command-line option values shared by the commands and the commands a cloud adds
(argparse `type=`: a bad value is a usage error naming the option, exit 2)."""

from __future__ import annotations

import argparse
from datetime import date


def iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD (got {text!r})") from None
