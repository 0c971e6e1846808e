"""Google Cloud Managed Service for Prometheus as the rollout's metrics source.

Its query API is Prometheus' own HTTP API under
`https://monitoring.googleapis.com/v1/projects/PROJECT_ID/location/global/prometheus`
(https://cloud.google.com/stackdriver/docs/managed-prometheus/query-api-ui), so the gates' queries
are the same; what differs is authentication: a Google access token with the `monitoring.read`
scope from Application Default Credentials (or `--impersonate-service-account`). A URL of that
shape gets the token; any other Prometheus (self-run, or Managed Service's in-cluster frontend,
which authenticates on its own) is queried as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

import google.auth
import google.auth.exceptions
import google_auth_httplib2
import httplib2
from google.auth import impersonated_credentials

from accelplane.cloud_support import Connection
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.credentials import credentials_problem
from accelplane.errors import InputError
from accelplane.prometheus_api import CloudMetricsAuthorization

MONITORING_READ_SCOPE = "https://www.googleapis.com/auth/monitoring.read"
QUERY_API_PATH = re.compile(r"^/v1/projects/[^/]+/location/[^/]+/prometheus/?$")


def is_managed_prometheus(url: str) -> bool:
    return bool(QUERY_API_PATH.match(urlsplit(url).path))


def bearer(url: str, impersonate: str | None) -> Callable[[], str] | None:
    """`Bearer <token>` for Managed Service for Prometheus' query API; None for another URL."""
    if not is_managed_prometheus(url):
        return None

    def refuse(why: str) -> InputError:
        return InputError.single(f"cannot query Managed Service for Prometheus at {url}: {why}",
                                 field="--prometheus-url", file="accelplane rollout")

    try:
        credentials, _ = google.auth.default(scopes=[MONITORING_READ_SCOPE])
    except google.auth.exceptions.DefaultCredentialsError as error:
        raise refuse(credentials_problem(error)) from None
    if impersonate:
        credentials = impersonated_credentials.Credentials(
            source_credentials=credentials, target_principal=impersonate, target_scopes=[MONITORING_READ_SCOPE]
        )

    def header() -> str:
        if not credentials.valid:
            try:
                credentials.refresh(google_auth_httplib2.Request(httplib2.Http(timeout=30)))
            except google.auth.exceptions.GoogleAuthError as error:
                raise refuse(f"cannot get a Google access token: {error}") from None
        return f"Bearer {credentials.token}"

    return header


def _authorization(url: str, connection: Connection) -> Callable[[], str] | None:
    return bearer(url, gcp_connection(connection).impersonate_service_account)


# This cloud's `accelplane.metrics_authorization` entry point: Managed Service for Prometheus.
METRICS_AUTHORIZATION = CloudMetricsAuthorization("gcp", _authorization)
