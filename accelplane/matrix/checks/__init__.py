"""Every compatibility check, in the order they run. A check is a function of a `Context` that
appends findings; it reads facts only from the loaded data."""

from __future__ import annotations

from collections.abc import Callable

from accelplane.matrix.checks import amd, ascend, comms, gaudi, neuron, nvidia, platform, published, torch, tpu
from accelplane.matrix.checks.context import Context

ALL_CHECKS: tuple[Callable[[Context], None], ...] = (
    *platform.CHECKS,
    *published.CHECKS,
    *nvidia.CHECKS,
    *torch.CHECKS,
    *comms.CHECKS,
    *amd.CHECKS,
    *neuron.CHECKS,
    *tpu.CHECKS,
    *gaudi.CHECKS,
    *ascend.CHECKS,
)

__all__ = ["ALL_CHECKS", "Context"]
