"""A Capacity Block purchase's terms as tags on the reservation itself, and read back from them: what the
policy rules, `cost`, `preview` and `capacity sync` judge from a plan, a state export or the live
reservation. Standard library only: a state or plan check loads it without the declaration's models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

# Tags that carry the purchase's terms on the reservation itself: what the policy rules, `cost` and a
# reviewer read from a plan, a state export or the live reservation.
TAG_OFFERING = "accelplane:capacity-offering"
TAG_START = "accelplane:capacity-start"
TAG_END = "accelplane:capacity-end"
TAG_UPFRONT = "accelplane:capacity-upfront-usd"
TAG_MAX_UPFRONT = "accelplane:capacity-max-upfront-usd"
TAG_APPROVED_BY = "accelplane:capacity-approved-by"
TAG_APPROVED_ON = "accelplane:capacity-approved-on"


def _money(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class TaggedTerms:
    """A purchase's terms read back from its tags (a plan's or a state export's `tags` mapping, or the
    live reservation's): what pricing, the approval rule, `preview` and `capacity sync` judge. A tag
    missing or unreadable is None."""

    offering: str | None
    start: str | None  # as tagged: UTC, e.g. 2026-12-21T11:30:00Z
    end: str | None
    upfront_usd: float | None
    max_upfront_usd: float | None
    approved_by: str | None
    approved_on: str | None

    @classmethod
    def of(cls, tags: Mapping[str, Any]) -> TaggedTerms:
        def text(key: str) -> str | None:
            value = tags.get(key)
            return str(value) if value else None

        return cls(offering=text(TAG_OFFERING), start=text(TAG_START), end=text(TAG_END),
                   upfront_usd=_money(tags.get(TAG_UPFRONT)), max_upfront_usd=_money(tags.get(TAG_MAX_UPFRONT)),
                   approved_by=text(TAG_APPROVED_BY), approved_on=text(TAG_APPROVED_ON))

    @property
    def hours(self) -> float:
        """The block's length; 0 when its dates are not both readable."""
        try:
            span = datetime.fromisoformat(str(self.end)) - datetime.fromisoformat(str(self.start))
        except ValueError:
            return 0.0
        return span.total_seconds() / 3600

    def dates(self) -> str:
        return f"{self.start or '?'} to {self.end or '?'}"
