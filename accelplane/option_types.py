"""Types of command-line option values shared by the commands and the commands a cloud adds
(argparse `type=`: a bad value is a usage error naming the option, exit 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import date


def iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD (got {text!r})") from None


def at_least(minimum: int) -> Callable[[str], int]:
    """A whole number of `minimum` or more."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number (got {text!r})") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {minimum} or more (got {value})")
        return value

    return whole_number
