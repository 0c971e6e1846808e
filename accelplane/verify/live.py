"""The live platform as verify's checks see it, whichever cloud it was read from.

A cloud's live reader matches each live resource to the declared resource it implements and gives
it that resource's type token, logical name and URN, with props in the declared (wire) shape: the
drift engine then compares two values of the same shape, and the policy rules run on what is live
exactly as `accelplane check` runs them on the offline graph.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from accelplane.rules.view import Resource
from accelplane.verify.canonical import Symbols


@dataclass
class Unexpected:
    resource: Resource
    reason: str


@dataclass
class LiveView:
    symbols: Symbols
    resources: list[Resource] = field(default_factory=list)
    matched: dict[str, Resource] = field(default_factory=dict)  # declared URN -> live resource
    unexpected: list[Unexpected] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)  # declared URN -> why it could not be read
    unreadable_props: dict[str, set[str]] = field(default_factory=dict)  # declared URN -> props not read
    missing_reason: dict[str, str] = field(default_factory=dict)  # declared URN -> more than "not found"
    unverified: Counter[str] = field(default_factory=Counter)  # declared type -> count not read
    # Declared resources of a type the cloud reads that this run could not reach (not judged, counted
    # above) and, per type, why: a cluster's API that is not reachable from here.
    not_read: set[str] = field(default_factory=set)
    unverified_reason: dict[str, str] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)  # declared URN -> raw API data, for state checks
    read: Counter[str] = field(default_factory=Counter)  # type -> live objects read (the report's coverage)
