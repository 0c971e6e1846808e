"""What the `migrate` commands share: the `--stack`'s migration, and the clouds its commands reach."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from accelplane.cli.stack_args import stack_or_migration
from accelplane.errors import InputError

if TYPE_CHECKING:  # annotations only: the migration modules load when a command runs
    from accelplane.migration.stack import MigrationStack


def migration_of(args: argparse.Namespace) -> MigrationStack:
    """The `--stack`'s migration (exit 2 for a platform stack, naming the command that fits it)."""
    from accelplane.migration.stack import MigrationStack  # start-up time: only the migrate commands load it

    stack = stack_or_migration(args)
    if not isinstance(stack, MigrationStack):
        raise InputError.single("expected a migration stack (`accelplane:migration`); for a service inside one "
                                "stack, `accelplane rollout` moves traffic between its backends",
                                file="accelplane migrate", field="--stack")
    return stack


def clouds_of(stack: MigrationStack) -> set[str]:
    """The clouds a migration's commands reach: both ends' and the DNS's."""
    from accelplane.migration.facets import dns_services  # start-up time: as in migration_of

    return {stack.source.platform.cloud, stack.target.platform.cloud,
            dns_services()[stack.migration.dns.service].cloud}
