"""What a cloud's preflight found (`CloudPreflight`), and how a cloud offers its preflight: an
`accelplane.preflight` entry point naming a `CloudPreflightChecks` (an optional facet; a cloud without
one is refused by `accelplane preflight` with exit 2 at the stack's `cloud:` line)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from accelplane.cloud_support import Capability, NotSupportedError, required_facet
from accelplane.declaration import Platform
from accelplane.errors import InputError
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck

PREFLIGHT_GROUP = "accelplane.preflight"


@dataclass
class CloudPreflight:
    """What a cloud's preflight found, and where it looked."""

    where: str
    endpoint: str
    checks: list[PreflightCheck]
    api_calls: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CloudPreflightChecks:
    cloud: str
    # connect read-only with the options' credentials; confirm quotas, offerings, reservations, versions
    run: Callable[[Platform, PreflightOptions], CloudPreflight]


def cloud_preflight(platform: Platform, options: PreflightOptions) -> CloudPreflight:
    try:
        facet = required_facet(PREFLIGHT_GROUP, platform.cloud, CloudPreflightChecks, Capability.preflight)
    except NotSupportedError as error:
        raise InputError.single(str(error), field="cloud") from None
    return facet.run(platform, options)
