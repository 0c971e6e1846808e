"""`SUPPORT`: AWS's `CloudSupport`, the entry point of the `accelplane.clouds` group.

See `accelplane.cloud_support` for the sub-layout every cloud shares. The declaration checks and the
catalog are light and load with it; the provider SDK, the offline mocks, boto3 and the live readers
load inside the methods that use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from accelplane.cloud_support import CloudSupport, DeclarationPath, Issue
from accelplane.clouds.aws import (
    addon_checks,
    ami_software,
    declaration_checks,
    provenance,
    resilience_checks,
)
from accelplane.clouds.aws.declaration import AwsPlatform, aws_platform
from accelplane.clouds.aws.node_vendors import EFA_RESOURCE

if TYPE_CHECKING:
    import pulumi

    from accelplane.declaration import Platform


class AwsSupport(CloudSupport):
    name = "aws"
    platform_model = AwsPlatform
    load_balancer_metrics = addon_checks.CLOUDWATCH  # the ALB's per-target-group metrics
    fabric_resources = (EFA_RESOURCE,)

    def declaration_problems(self, platform: Platform) -> Iterable[Issue]:
        own = aws_platform(platform)
        yield from declaration_checks.aws_problems(own)
        yield from addon_checks.eks_problems(own)
        yield from ami_software.ami_software_problems(own)
        yield from resilience_checks.resilience_problems(own)

    def provider_config(self, platform: Platform) -> Mapping[str, str]:
        return {"aws:region": platform.region}

    def addon_fields(self) -> tuple[str, ...]:
        return addon_checks.ADDON_FIELDS

    def vendor_plugin_fields(self, vendor: str) -> tuple[str, ...]:
        return addon_checks.VENDOR_PLUGIN_FIELDS.get(vendor, ())

    def declaration_paths(self, platform: Platform) -> dict[tuple[str, str], DeclarationPath]:
        return provenance.declaration_paths(aws_platform(platform))

    def build(self, platform: Platform) -> dict[str, object]:
        # Start-up time: pulumi-aws (about 0.5 s) loads only when the program runs.
        from accelplane.clouds.aws.composition import build_aws

        return build_aws(aws_platform(platform))

    def offline_mocks(self, platform: Platform) -> pulumi.runtime.Mocks:
        # Start-up time: the Pulumi SDK loads only for the offline engine.
        from accelplane.clouds.aws.mocks import AwsLikeMocks

        return AwsLikeMocks(region=platform.region)








SUPPORT = AwsSupport()
