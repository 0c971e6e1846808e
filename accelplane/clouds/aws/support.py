"""`SUPPORT`: AWS's `CloudSupport`, the entry point of the `accelplane.clouds` group.

See `accelplane.cloud_support` for the sub-layout every cloud shares. The declaration models, checks
and facts load on first use (a stack of another cloud loads this object too); the provider SDK, the
offline mocks, boto3 and the live readers inside the methods that use them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from accelplane.cloud_support import CloudSupport, DeclarationPath, Issue
from accelplane.clouds.aws.node_vendors import EFA_RESOURCE
from accelplane.clouds.aws.rollout import CLOUDWATCH

if TYPE_CHECKING:
    import pulumi

    from accelplane.declaration import Platform


class AwsSupport(CloudSupport):
    name = "aws"
    load_balancer_metrics = CLOUDWATCH  # the ALB's per-target-group metrics
    fabric_resources = (EFA_RESOURCE,)

    # The declaration models, checks and facts load on first use (not on import): a stack of another
    # cloud loads this object for Kueue's fabric resources only.
    @property
    def platform_model(self) -> type[Platform]:
        from accelplane.clouds.aws.declaration import AwsPlatform  # start-up time: see above

        return AwsPlatform

    def declaration_problems(self, platform: Platform) -> Iterable[Issue]:
        # Start-up time: as for platform_model.
        from accelplane.clouds.aws import addon_checks, ami_software, declaration_checks, resilience_checks
        from accelplane.clouds.aws.declaration import aws_platform

        own = aws_platform(platform)
        yield from declaration_checks.aws_problems(own)
        yield from addon_checks.eks_problems(own)
        yield from ami_software.ami_software_problems(own)
        yield from resilience_checks.resilience_problems(own)

    def provider_config(self, platform: Platform) -> Mapping[str, str]:
        return {"aws:region": platform.region}

    def addon_fields(self) -> tuple[str, ...]:
        from accelplane.clouds.aws import addon_checks  # start-up time: as for platform_model

        return addon_checks.ADDON_FIELDS

    def vendor_plugin_fields(self, vendor: str) -> tuple[str, ...]:
        from accelplane.clouds.aws import addon_checks  # start-up time: as for platform_model

        return addon_checks.VENDOR_PLUGIN_FIELDS.get(vendor, ())

    def declaration_paths(self, platform: Platform) -> dict[tuple[str, str], DeclarationPath]:
        # Start-up time: as for platform_model.
        from accelplane.clouds.aws import provenance
        from accelplane.clouds.aws.declaration import aws_platform

        return provenance.declaration_paths(aws_platform(platform))

    def build(self, platform: Platform) -> dict[str, object]:
        # Start-up time: pulumi-aws (about 0.5 s) loads only when the program runs.
        from accelplane.clouds.aws.composition import build_aws
        from accelplane.clouds.aws.declaration import aws_platform  # start-up time: as for platform_model

        return build_aws(aws_platform(platform))

    def offline_mocks(self, platform: Platform) -> pulumi.runtime.Mocks:
        # Start-up time: the Pulumi SDK loads only for the offline engine.
        from accelplane.clouds.aws.mocks import AwsLikeMocks

        return AwsLikeMocks(region=platform.region)








SUPPORT = AwsSupport()
