"""The Pulumi program: the composition of the declared cloud, from one validated declaration.

`build()` runs unchanged under the real engine (`pulumi up`) and under the offline engine
(`accelplane preview`), and creates nothing at import time. Each cloud's composition imports only
its own provider SDK, so an AWS stack never loads pulumi-gcp and the other way round.
"""

from __future__ import annotations

from typing import Any

from accelplane.config.model import Cloud, Platform


def build(platform: Platform) -> dict[str, Any]:
    """Declare every resource of the platform; return the stack outputs."""
    if platform.cloud is Cloud.gcp:
        from accelplane.composition.gcp import build_gcp

        return build_gcp(platform)
    from accelplane.composition.aws import build_aws

    return build_aws(platform)
