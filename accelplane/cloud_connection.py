"""How a live command reaches a cloud's API: the options each cloud offers, and the settings a command
read from them.

Each cloud offers its connection options as an `accelplane.connections` entry point (`<cloud> =
<module>:<CloudConnection>`), a light module (no SDK), as every command's parser is built at start. A
command that calls a cloud (`verify`, `rollout`, `preflight`) shows each installed cloud's options in a
group of its own, and hands the stack's cloud a `Connection` of that cloud's own type; an option of
another cloud is refused once, here, naming what the stack's cloud takes instead — no cloud keeps a
list of the others' options.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import cache

from accelplane.cloud_support import Connection, installed_facets
from accelplane.errors import InputError
from accelplane.urls import url_problem

ENTRY_POINT_GROUP = "accelplane.connections"
ENDPOINT_EXPECTED = "expected an http:// or https:// URL with a host, e.g. http://127.0.0.1:5000"


def endpoint_argument(text: str) -> str:
    """An API endpoint option's value, checked for what any endpoint must be (an http:// or https:// URL
    with a host, no credentials, query or fragment); the cloud checks the rest where it connects."""
    problem = url_problem(text, ENDPOINT_EXPECTED, server_only=True,
                          credentials_hint="give credentials through the cloud's credential chain")
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


@dataclass(frozen=True)
class ConnectionOption:
    flag: str  # e.g. --endpoint-url
    help: str
    metavar: str | None = None
    parse: Callable[[str], object] = str  # argparse `type`: raises ArgumentTypeError on a bad value
    repeated: bool = False  # given once per value (a list)

    @property
    def dest(self) -> str:
        return "connection_" + self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class CloudConnection:
    """One cloud's connection options (the entry point's object)."""

    cloud: str
    title: str  # how messages name the cloud (AWS, Google Cloud)
    options: tuple[ConnectionOption, ...]
    instead: str  # what to give on this cloud, for a message refusing another cloud's option
    # the options' values by `ConnectionOption.dest` (None or [] when not given) -> this cloud's Connection
    settings: Callable[[Mapping[str, object]], Connection]


@cache
def installed_connections() -> tuple[CloudConnection, ...]:
    return installed_facets(ENTRY_POINT_GROUP, CloudConnection)


def connection_for(cloud: str, given: Mapping[str, object], command: str) -> Connection:
    """The stack's cloud's `Connection` from the options given (by dest); `InputError` (exit 2) naming
    the first option that only another cloud reads."""
    facets = {facet.cloud: facet for facet in installed_connections()}
    own = facets.get(cloud)
    own_flags = {option.flag for option in own.options} if own else set()
    for facet in facets.values():
        for option in facet.options:
            if option.flag not in own_flags and given.get(option.dest) not in (None, [], ()):
                where = own.title if own else f"the {cloud} cloud"
                instead = own.instead if own else "it takes no connection options"
                raise InputError.single(f"not used on {where} ({facet.title} only): {instead}", field=option.flag,
                                        file=f"accelplane {command}")
    if own is None:
        return Connection()
    return own.settings({option.dest: given.get(option.dest) for option in own.options})


def connections_for(clouds: Collection[str], given: Mapping[str, object], command: str) -> dict[str, Connection]:
    """The `Connection` of each of `clouds` (a command that spans several: a migration's two ends and the
    DNS between them); `InputError` (exit 2) naming the first option none of them reads."""
    facets = {facet.cloud: facet for facet in installed_connections()}
    flags = {option.flag for cloud in clouds if cloud in facets for option in facets[cloud].options}
    for facet in facets.values():
        for option in facet.options:
            if option.flag not in flags and given.get(option.dest) not in (None, [], ()):
                titles = " or ".join(sorted(facets[cloud].title if cloud in facets else cloud for cloud in clouds))
                raise InputError.single(f"not used here ({facet.title} only; this command reaches {titles})",
                                        field=option.flag, file=f"accelplane {command}")
    return {cloud: facets[cloud].settings({option.dest: given.get(option.dest) for option in facets[cloud].options})
            if cloud in facets else Connection() for cloud in clouds}
