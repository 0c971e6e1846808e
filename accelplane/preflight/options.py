"""What `accelplane preflight` is asked to do: where to connect and what counts as fit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class PreflightOptions:
    endpoint_url: str | None = None  # AWS: send every call here (moto, a VPC endpoint proxy)
    profile: str | None = None  # AWS named profile
    api_endpoints: Mapping[str, str] = field(default_factory=dict)  # Google Cloud: service -> URL
    impersonate_service_account: str | None = None  # Google Cloud
    ca_bundle: str | None = None
    min_days: int = 7  # a reservation or version support ending sooner than this does not fit
    allow_unknown: bool = False  # a check that could not be made does not block
    max_attempts: int = 8  # per call, with backoff (throttling)
    concurrency: int = 8
    now: datetime | None = None  # tests pin the clock
    inventory: str | None = None  # bare metal: the inventory the node preflight reads (default: the stack's)
