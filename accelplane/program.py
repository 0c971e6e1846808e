"""The Pulumi program: the composition of the declared cloud, from one validated declaration.

`build()` runs unchanged under the real engine (`pulumi up`) and under the offline engine
(`offline_graph()`, what `accelplane preview`, `check --stack` and `verify` read), and creates
nothing at import time. The stack's cloud comes from the registry (`accelplane.clouds`), and each
cloud's composition imports only its own provider SDK, so an AWS stack never loads pulumi-gcp and
the other way round.
"""

from __future__ import annotations

from typing import Any

from accelplane.cloud_support import cloud_support
from accelplane.config.loader import StackConfig
from accelplane.declaration import Platform
from accelplane.engine.graph import OfflineGraph
from accelplane.engine.offline import run_offline


def build(platform: Platform) -> dict[str, Any]:
    """Declare every resource of the platform; return the stack outputs."""
    return cloud_support(platform.cloud).build(platform)


def offline_graph(stack: StackConfig) -> OfflineGraph:
    """The program run offline for the stack, with mocks that answer like its cloud."""
    return run_offline(stack, build, cloud_support(stack.platform.cloud).offline_mocks(stack.platform))
