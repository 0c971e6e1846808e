"""What `accelplane preflight` is asked to do: where to connect and what counts as fit."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from accelplane.cloud_support import Connection


@dataclass(frozen=True)
class PreflightOptions:
    connection: Connection = field(default_factory=Connection)  # the stack's cloud's connection options
    ca_bundle: str | None = None
    min_days: int = 7  # a reservation or version support ending sooner than this does not fit
    allow_unknown: bool = False  # a check that could not be made does not block
    max_attempts: int = 8  # per call, with backoff (throttling)
    concurrency: int = 8
    now: datetime | None = None  # tests pin the clock
    inventory: str | None = None  # bare metal: the inventory the node preflight reads (default: the stack's)
    nodes_only: bool = False  # bare metal only: no cloud read, so no cloud credentials
