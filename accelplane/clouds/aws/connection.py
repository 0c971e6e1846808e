"""How `verify`, `rollout` and `preflight` reach AWS: `--endpoint-url` and `--profile` (`CONNECTION`,
this cloud's `accelplane.connections` entry point), read into an `AwsConnection`. botocore's host rules
are checked where the clients are made (`clients.endpoint_url_problem`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from accelplane.cloud_connection import CloudConnection, ConnectionOption, endpoint_argument
from accelplane.cloud_support import Connection


@dataclass(frozen=True)
class AwsConnection(Connection):
    endpoint_url: str | None = None  # every API call goes here (moto, LocalStack, a VPC endpoint proxy)
    profile: str | None = None  # a named profile; None: the standard credential chain


def aws_connection(connection: Connection) -> AwsConnection:
    """`connection` as AWS reads it (the base, where no option was given: the defaults)."""
    return connection if isinstance(connection, AwsConnection) else AwsConnection()



ENDPOINT_URL = ConnectionOption(
    "--endpoint-url", "send every AWS API call here (moto, LocalStack, a VPC endpoint proxy): an http:// or "
    "https:// URL", metavar="URL", parse=endpoint_argument)
PROFILE = ConnectionOption("--profile", "the named AWS profile to read with (default: the standard credential "
                           "chain)", metavar="NAME")


def _settings(given: Mapping[str, object]) -> AwsConnection:
    url, profile = given.get(ENDPOINT_URL.dest), given.get(PROFILE.dest)
    return AwsConnection(str(url) if url else None, str(profile) if profile else None)


CONNECTION = CloudConnection(cloud="aws", title="AWS", options=(ENDPOINT_URL, PROFILE),
                             instead="give --endpoint-url and --profile", settings=_settings)
