"""A migration stack when the Pulumi engine runs the program (`pulumi up --stack llm-move`): the stack
file where `stackConfigDir` puts it, with its two ends beside it, loaded and checked as the CLI does."""

from __future__ import annotations

import pulumi

from accelplane.config.keys import MIGRATION_KEY
from accelplane.config.project import find_project
from accelplane.migration.loader import load_migration
from accelplane.migration.stack import MigrationStack


def is_migration_run() -> bool:
    """Whether the stack being run declares a migration (`accelplane:migration`) rather than a platform."""
    namespace, key = MIGRATION_KEY.split(":")
    config = pulumi.Config(namespace)
    return config.get(key) is not None and config.get("platform") is None


def migration_from_pulumi() -> MigrationStack:
    stack = pulumi.get_stack()
    return load_migration(find_project().stack_file(stack), stack=stack)
