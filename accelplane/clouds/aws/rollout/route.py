"""A service's live route on AWS: the ALB listener or rule forwarding to its target groups.

Reads go through the read-only `AwsClients`; the one write (`ModifyListener`/`ModifyRule`) through
a separate client made for it. The cloud's own metrics are the ALB's CloudWatch metrics.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from accelplane.clouds.aws.clients import API_ERRORS, AwsClients
from accelplane.clouds.aws.connection import aws_connection
from accelplane.clouds.aws.declaration import aws_platform
from accelplane.clouds.aws.rollout import alb, cloudwatch
from accelplane.errors import InputError
from accelplane.rollout.route import CloudRoute, LiveRoute, RouteError, RouteRequest
from accelplane.rollout.traffic import Traffic


class Aws:
    """boto3 clients for the stack's region: reads through the read-only clients, the one write
    (ModifyListener/ModifyRule) through a separate client."""

    def __init__(self, region: str, endpoint_url: str | None, profile: str | None) -> None:
        self.reads = AwsClients(region, endpoint_url=endpoint_url, profile=profile, max_attempts=4)

    def __call__(self, service: str) -> Any:
        return self.reads(service)

    def writer(self, service: str) -> Any:
        return self.reads.session.client(service, endpoint_url=self.reads.endpoint_url, config=self.reads.config)


def connect_aws(region: str, endpoint_url: str | None, profile: str | None) -> Aws:
    """Tests replace this to route some calls to recorded answers (see tests/rollout)."""
    try:
        return Aws(region, endpoint_url, profile)
    except API_ERRORS as error:  # an unknown --profile
        raise InputError.single(str(error), field="--profile", file="accelplane rollout") from None


class AlbRoute(LiveRoute):
    def __init__(self, aws: Aws, routing: alb.Routing) -> None:
        self.aws = aws
        self.routing = routing

    @property
    def where(self) -> str:
        return self.routing.where

    def weights(self) -> dict[str, int]:
        return alb.live_weights(self.routing)

    def apply(self, weights: dict[str, int]) -> None:
        alb.apply_weights(self.aws.writer("elbv2"), self.routing, weights)

    def traffic(self, backends: list[str], window_seconds: int, now: datetime) -> Traffic:
        try:
            return cloudwatch.read_traffic(self.aws("cloudwatch"), self.routing, backends, window_seconds, now)
        except cloudwatch.MetricsError as error:
            raise InputError.single(str(error), file="accelplane rollout") from None


def alb_route(request: RouteRequest) -> AlbRoute:
    """The service's route on the platform's ALB; `RouteError` when it is not exposed or not found."""
    platform, service = request.platform, request.service
    if request.kube_context:
        raise InputError.single("not used on AWS: the ALB is reached with --endpoint-url and --profile",
                                field="--context", file="accelplane rollout")
    if not service.expose:
        raise RouteError("no ALB route: the service is not exposed")
    connection = aws_connection(request.connection)
    aws = connect_aws(platform.region, connection.endpoint_url, connection.profile)
    try:
        return AlbRoute(aws, alb.find_routing(aws, aws_platform(platform), service))
    except alb.RoutingError as error:
        raise RouteError(str(error)) from None


ROUTE = CloudRoute("aws", alb_route)  # this cloud's `accelplane.routes` entry point
