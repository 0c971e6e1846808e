"""`accelplane preflight` on AWS: EC2 vCPU quotas, instance type offerings per zone, EFA, capacity
reservations and capacity blocks, the EKS version and the node images, all read-only.

moto implements the EC2 reads (instance types, offerings, instances, subnets); Service Quotas for
`ec2`, DescribeCapacityReservations, EKS DescribeClusterVersions and the public SSM parameters are
answered in tests by botocore's Stubber, which validates each answer against the service model.
"""

from __future__ import annotations

from accelplane.clouds.aws.clients import AwsClients, endpoint_url_problem
from accelplane.clouds.aws.connection import aws_connection
from accelplane.clouds.aws.declaration import AwsPlatform, aws_platform
from accelplane.clouds.aws.preflight.blocks import block_checks
from accelplane.clouds.aws.preflight.calls import AwsReads
from accelplane.clouds.aws.preflight.capacity import efa_checks, offering_checks, reservation_checks
from accelplane.clouds.aws.preflight.cluster import image_checks, version_checks
from accelplane.clouds.aws.preflight.demand import pool_demands
from accelplane.clouds.aws.preflight.quotas import quota_checks
from accelplane.declaration import Platform
from accelplane.errors import InputError
from accelplane.preflight.cloud_preflight import CloudPreflight, CloudPreflightChecks
from accelplane.preflight.options import PreflightOptions
from accelplane.preflight.results import PreflightCheck

HERE = "accelplane preflight"


def run_preflight(platform: AwsPlatform, options: PreflightOptions) -> CloudPreflight:
    # Start-up time: verify's connection helpers load only here.
    from accelplane.clouds.aws.verify.reader import aws_clients, caller_account

    connection = aws_connection(options.connection)
    problem = connection.endpoint_url and endpoint_url_problem(connection.endpoint_url)
    if problem:
        raise InputError.single(problem, file=HERE, field="--endpoint-url")
    clients = aws_clients(platform.region, endpoint_url=connection.endpoint_url, profile=connection.profile,
                          max_attempts=options.max_attempts, concurrency=options.concurrency, here=HERE)
    account = caller_account(clients, HERE)
    checks = aws_preflight(platform, clients, options)
    return CloudPreflight(f"account {account}, region {platform.region}", clients.endpoint, checks,
                          clients.calls.to_json())


def aws_preflight(platform: AwsPlatform, clients: AwsClients, options: PreflightOptions) -> list[PreflightCheck]:
    reads = AwsReads(clients)
    demands, zone_checks = pool_demands(platform, reads)
    types = reads.instance_types(sorted({demand.instance_type for demand in demands}))
    checks = list(zone_checks)
    checks += quota_checks(platform, demands, types, reads)
    checks += offering_checks(demands, reads)
    checks += efa_checks(demands, types)
    checks += reservation_checks(demands, reads, options, platform.network)
    checks += block_checks(demands, reads, options)
    checks += version_checks(platform, reads, options)
    checks += image_checks(platform, reads)
    return checks


def _run(platform: Platform, options: PreflightOptions) -> CloudPreflight:
    return run_preflight(aws_platform(platform), options)


PREFLIGHT = CloudPreflightChecks("aws", _run)  # this cloud's `accelplane.preflight` entry point
