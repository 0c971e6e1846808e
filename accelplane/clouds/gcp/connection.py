"""How `verify`, `rollout` and `preflight` reach Google Cloud: `--api-endpoint SERVICE=URL` per service
and `--impersonate-service-account` (`CONNECTION`, this cloud's `accelplane.connections` entry point),
read into a `GcpConnection`. Credentials come from Application Default Credentials."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field

from accelplane.cloud_connection import CloudConnection, ConnectionOption, endpoint_argument
from accelplane.cloud_support import Connection


@dataclass(frozen=True)
class GcpConnection(Connection):
    api_endpoints: Mapping[str, str] = field(default_factory=dict)  # service -> URL
    impersonate_service_account: str | None = None  # read as this service account, with short-lived tokens


def gcp_connection(connection: Connection) -> GcpConnection:
    """`connection` as Google Cloud reads it (the base, where no option was given: the defaults)."""
    return connection if isinstance(connection, GcpConnection) else GcpConnection()


def _api_endpoint(text: str) -> tuple[str, str]:
    service, sep, url = text.partition("=")
    if not sep or not service:
        raise argparse.ArgumentTypeError(f"expected SERVICE=URL, e.g. compute=https://compute.example.p.googleapis.com/"
                                         f"compute/v1/ (got {text!r})")
    return service, endpoint_argument(url)


API_ENDPOINT = ConnectionOption(
    "--api-endpoint", "send one Google Cloud service's calls here (a Private Service Connect endpoint, an "
    "emulator); repeat per service (compute, container, cloudkms, secretmanager, iam, certificatemanager, storage, "
    "cloudresourcemanager, cloudquotas, dns)", metavar="SERVICE=URL", parse=_api_endpoint, repeated=True)
IMPERSONATE = ConnectionOption(
    "--impersonate-service-account", "read Google Cloud as this service account with short-lived tokens (default: "
    "CLOUDSDK_AUTH_IMPERSONATE_SERVICE_ACCOUNT, else the credentials' own identity)", metavar="EMAIL")


def _settings(given: Mapping[str, object]) -> GcpConnection:
    pairs = given.get(API_ENDPOINT.dest) or []
    account = given.get(IMPERSONATE.dest)
    endpoints = dict(pairs) if isinstance(pairs, list) else {}
    return GcpConnection(endpoints, str(account) if account else None)


CONNECTION = CloudConnection(
    cloud="gcp", title="Google Cloud", options=(API_ENDPOINT, IMPERSONATE),
    instead="give --api-endpoint SERVICE=URL per service; credentials come from Application Default Credentials",
    settings=_settings)
