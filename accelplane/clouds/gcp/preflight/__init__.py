"""`accelplane preflight` on Google Cloud: regional GPU and TPU quotas (Compute `regions.get`, the
Cloud Quotas API where a family is not listed there), machine and accelerator types in every node
location, the reservations pools name and the future reservations they request, and the GKE version
in the release channel; read-only, with the read-only scope."""

from __future__ import annotations

from accelplane.clouds.gcp.clients import GcpClients, api_endpoint_problem
from accelplane.clouds.gcp.connection import gcp_connection
from accelplane.clouds.gcp.declaration import GcpPlatform, gcp_platform
from accelplane.clouds.gcp.preflight.capacity import offering_checks, request_checks, reservation_checks
from accelplane.clouds.gcp.preflight.cluster import version_checks
from accelplane.clouds.gcp.preflight.demand import pool_demands
from accelplane.clouds.gcp.preflight.quotas import quota_checks
from accelplane.declaration import Platform
from accelplane.errors import InputError
from accelplane.preflight.cloud_preflight import CloudPreflight, CloudPreflightChecks
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck

HERE = "accelplane preflight"


def gcp_preflight(platform: GcpPlatform, clients: GcpClients, options: PreflightOptions) -> list[PreflightCheck]:
    demands = pool_demands(platform)
    checks = quota_checks(demands, clients)
    checks += offering_checks(demands, clients)
    checks += reservation_checks(demands, clients, options)
    checks += request_checks(demands, clients, options)
    checks += version_checks(platform, clients)
    return checks


def run_preflight(
    platform: GcpPlatform, options: PreflightOptions, clients: GcpClients | None = None
) -> CloudPreflight:
    # Start-up time: verify's connection helper loads only here.
    from accelplane.clouds.gcp.verify.reader import check_project

    connection = gcp_connection(options.connection)
    for service, url in connection.api_endpoints.items():
        problem = api_endpoint_problem(f"{service}={url}")
        if problem:
            raise InputError.single(problem, file=HERE, field="--api-endpoint")
    assert platform.gcp is not None  # required on Google Cloud by the declaration checks
    clients = clients or GcpClients(platform.gcp.project, platform.region, endpoints=connection.api_endpoints,
                                    impersonate=connection.impersonate_service_account, ca_bundle=options.ca_bundle,
                                    max_attempts=options.max_attempts)
    check_project(clients, HERE)
    checks = gcp_preflight(platform, clients, options)
    return CloudPreflight(f"project {clients.project}, region {platform.region}", clients.endpoint, checks,
                          clients.calls.to_json())


def _run(platform: Platform, options: PreflightOptions) -> CloudPreflight:
    return run_preflight(gcp_platform(platform), options)


PREFLIGHT = CloudPreflightChecks("gcp", _run)  # this cloud's `accelplane.preflight` entry point
