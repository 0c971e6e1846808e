"""`--stack NAME | --stack-file PATH`, the same on every command that reads a declaration.

`--stack NAME` is `<stackConfigDir>/Pulumi.<NAME>.yaml` of the project found from the current
directory upwards (`accelplane.config.project`); `--stack-file PATH` is a stack file anywhere, its
stack name taken from the file name (`Pulumi.<stack>.yaml`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from accelplane.cloud_support import NotSupportedError
from accelplane.errors import InputError

if TYPE_CHECKING:
    # Start-up time: only this command loads these (every parser is built at start).
    from accelplane.config.loader import StackConfig
    from accelplane.migration.stack import MigrationStack


def add_stack_arguments(parser: argparse.ArgumentParser, *, required: bool = True, purpose: str = "") -> None:
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--stack", metavar="NAME",
                       help=f"stack name: <stackConfigDir>/Pulumi.<NAME>.yaml of this project{purpose}")
    group.add_argument("--stack-file", type=Path, metavar="PATH",
                       help="a stack file anywhere (Pulumi.<stack>.yaml), instead of --stack")


def stack_from_args(args: argparse.Namespace) -> StackConfig | None:
    """The validated stack the arguments name, or None when neither option was given."""
    if args.stack_file is None and args.stack is None:
        return None
    # Start-up time: the declaration model loads only when a stack is named.
    from accelplane.config.loader import load_stack, load_stack_file

    return load_stack_file(args.stack_file) if args.stack_file is not None else load_stack(args.stack)


def stack_or_migration(args: argparse.Namespace) -> StackConfig | MigrationStack | None:
    """What the arguments name, for the commands that read both kinds of stack (`preview`, `check`,
    `migrate`): a platform stack, or a migration stack loaded from the file the platform loader parsed."""
    # Start-up time: the loaders load only when a stack is named.
    from accelplane.config.loader import MigrationStackError
    from accelplane.migration.loader import from_stack_file

    try:
        return stack_from_args(args)
    except MigrationStackError as found:
        return from_stack_file(found)


def require_stack(args: argparse.Namespace) -> StackConfig:
    stack = stack_from_args(args)
    assert stack is not None  # argparse requires one of the two
    return stack


def at_cloud_line[T](stack: StackConfig, load: Callable[[str], T]) -> T:
    """`load(cloud)` for the stack's cloud (one of its facets); a capability the cloud does not have is
    a usage error at the stack's `cloud:` line."""
    try:
        return load(stack.platform.cloud)
    except NotSupportedError as error:
        raise InputError.single(f"{error} (stack {stack.stack})", file=str(stack.path), line=stack.line_of("cloud"),
                                field="cloud") from None
