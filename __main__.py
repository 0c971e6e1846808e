"""Pulumi entry point: load the stack's declaration, check its profiles, preflight where the stack asks
for it, build, export."""

import pulumi

from accelplane.config.pulumi_source import platform_from_pulumi
from accelplane.engine.profile_checks import check_pool_profiles, render_profile_checks
from accelplane.errors import InputError
from accelplane.program import build

try:
    platform = platform_from_pulumi()
except InputError as error:
    raise pulumi.RunError(str(error)) from None

# Refuse to deploy a software profile the version matrix calls incompatible with its pool.
profile_checks = check_pool_profiles(platform, strict=pulumi.Config("accelplane").get_bool("strictMatrix") or False)
if any(result.blocking for result in profile_checks):
    raise pulumi.RunError(render_profile_checks(profile_checks))

# With accelplane:preflight on, confirm quotas, zones, reservations and versions before anything is
# registered: a stack that cannot get its capacity stops here, not half-way through `pulumi up`.
config = pulumi.Config("accelplane")
if config.get_bool("preflight"):
    from accelplane.preflight.gate import preflight_refusal

    refusal = preflight_refusal(platform, pulumi.get_stack(), allow_unknown=config.get_bool("preflightAllowUnknown")
                                or False)
    if refusal:
        raise pulumi.RunError(refusal)

for key, value in build(platform).items():
    pulumi.export(key, value)
