"""The connection options of the commands that call a cloud's API (`verify`, `rollout`, `preflight`):
each installed cloud's, in a group of its own (`accelplane.cloud_connection`)."""

from __future__ import annotations

import argparse

from accelplane.cloud_connection import connection_for, connections_for, installed_connections
from accelplane.cloud_support import Connection


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    added: set[str] = set()
    for facet in installed_connections():
        group = parser.add_argument_group(f"connecting to {facet.title} (cloud: {facet.cloud} stacks)")
        for option in facet.options:
            if option.flag in added:  # two clouds that read the same option share it
                continue
            added.add(option.flag)
            if option.repeated:
                group.add_argument(option.flag, dest=option.dest, type=option.parse, action="append", default=[],
                                   metavar=option.metavar, help=option.help)
            else:
                group.add_argument(option.flag, dest=option.dest, type=option.parse, metavar=option.metavar,
                                   help=option.help)


def connection_of(args: argparse.Namespace, cloud: str, command: str) -> Connection:
    """The stack's cloud's connection settings from the parsed options (exit 2 on another cloud's option)."""
    return connection_for(cloud, vars(args), command)


def connections_of(args: argparse.Namespace, clouds: set[str], command: str) -> dict[str, Connection]:
    """Each of `clouds`' connection settings, for a command that reaches several (exit 2 on an option
    none of them reads)."""
    return connections_for(sorted(clouds), vars(args), command)
