"""The live view of an AWS platform: the cloud-neutral `LiveView` and what AWS's checks add to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from accelplane.verify.live import LiveView


@dataclass
class AwsLiveView(LiveView):
    # Every live target group of the platform (ARN -> name, tags): what a forward to one that is not
    # a backend's is, in its message.
    target_groups: dict[str, dict[str, Any]] = field(default_factory=dict)
