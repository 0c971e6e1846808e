"""Pulumi entry point: load the stack's declaration, check its profiles, preflight where the stack asks
for it, build, export. A migration stack (`accelplane:migration`) builds its weighted DNS records."""

from collections.abc import Mapping
from typing import Any

import pulumi

from accelplane.config.pulumi_source import platform_from_pulumi
from accelplane.engine.profile_checks import check_pool_profiles, render_profile_checks
from accelplane.errors import InputError
from accelplane.migration.pulumi_source import is_migration_run, migration_from_pulumi
from accelplane.program import build


def platform_stack() -> Mapping[str, Any]:
    try:
        platform = platform_from_pulumi()
    except InputError as error:
        raise pulumi.RunError(str(error)) from None

    # Refuse to deploy a software profile the version matrix calls incompatible with its pool.
    config = pulumi.Config("accelplane")
    profile_checks = check_pool_profiles(platform, strict=config.get_bool("strictMatrix") or False)
    if any(result.blocking for result in profile_checks):
        raise pulumi.RunError(render_profile_checks(profile_checks))

    # With accelplane:preflight on, confirm quotas, zones, reservations and versions before anything is
    # registered: a stack that cannot get its capacity stops here, not half-way through `pulumi up`.
    if config.get_bool("preflight"):
        from accelplane.preflight.gate import preflight_refusal

        refusal = preflight_refusal(platform, pulumi.get_stack(),
                                    allow_unknown=config.get_bool("preflightAllowUnknown") or False)
        if refusal:
            raise pulumi.RunError(refusal)
    return build(platform)


def migration_stack() -> Mapping[str, Any]:
    """The weighted records of the migration's public name, pointing at its two ends' fronts."""
    from accelplane.migration.program import build_migration

    try:
        migration = migration_from_pulumi()
    except InputError as error:
        raise pulumi.RunError(str(error)) from None
    return build_migration(migration)


for key, value in (migration_stack() if is_migration_run() else platform_stack()).items():
    pulumi.export(key, value)
