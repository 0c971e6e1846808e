"""Commands a cloud adds to `accelplane matrix`: facts only it has (what its machine images ship) get
their own `matrix refresh <source>` and `matrix resolve` form from the cloud's folder, as an
`accelplane.matrix_cli` entry point naming a `CloudMatrixCommands` (an optional facet).

The facet module is light (argparse only): every command's parser is built at start; the cloud's work
loads when its command runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from accelplane.cloud_support import installed_facets

ENTRY_POINT_GROUP = "accelplane.matrix_cli"


@dataclass(frozen=True)
class CloudMatrixCommands:
    cloud: str
    # adds the cloud's `matrix refresh <source>` parsers (each sets its handler) to the sources given
    add_refresh_sources: Callable[[argparse._SubParsersAction], None]
    # adds the subjects `matrix resolve` answers for this cloud: to the required one-of group, and the
    # options that go with them to the parser
    add_resolve_options: Callable[[argparse._MutuallyExclusiveGroup, argparse.ArgumentParser], None]
    # answers `matrix resolve` when one of its subjects was given (the exit code), else None; refuses (exit
    # 2) an option of its own given without its subject
    resolve: Callable[[argparse.Namespace], int | None]


@cache
def installed_matrix_commands() -> tuple[CloudMatrixCommands, ...]:
    return installed_facets(ENTRY_POINT_GROUP, CloudMatrixCommands)
