"""The AWS reads preflight makes, each failure turned into one `UnreadableError` that names the IAM
action to grant (a denied call), or says it was throttled past the retries: the caller reports the
check as unknown, never as fit. Calls go through `AwsClients` (read-only by construction, adaptive
retries with backoff, counted)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from botocore import xform_name

from accelplane.clouds.aws.clients import API_ERRORS, AwsClients, describe_error

# botocore service name -> IAM action prefix, where they differ.
_IAM_PREFIX = {"service-quotas": "servicequotas"}
_DENIED = ("AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "UnauthorizedException")
_THROTTLED = ("Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException")


@dataclass
class UnreadableError(Exception):
    operation: str  # ec2.DescribeCapacityReservations
    action: str  # ec2:DescribeCapacityReservations
    code: str
    message: str

    def why(self) -> str:
        if self.code in _DENIED:
            return f"{self.operation} was denied: grant {self.action} (docs/aws/preflight-policy.json)"
        if self.code in _THROTTLED:
            return f"{self.operation} was throttled past its retries ({self.code}): rerun later"
        return f"{self.operation} failed: {self.code}: {self.message}"


@dataclass(frozen=True)
class InstanceType:
    name: str
    vcpus: int
    efa: bool
    efa_interfaces: int
    network: str  # EC2's NetworkPerformance, e.g. "3200 Gigabit"


class AwsReads:
    def __init__(self, clients: AwsClients) -> None:
        self.clients = clients
        self.region = clients.region

    def call(self, service: str, operation: str, **params: Any) -> dict[str, Any]:
        client = self.clients(service)
        try:
            return getattr(client, xform_name(operation))(**params)
        except API_ERRORS as error:
            code, message = describe_error(error)
            raise UnreadableError(f"{service}.{operation}", f"{_IAM_PREFIX.get(service, service)}:{operation}", code,
                             message) from None

    def pages(self, service: str, operation: str, key: str, **params: Any) -> list[dict[str, Any]]:
        client = self.clients(service)
        try:
            return [item for page in client.get_paginator(xform_name(operation)).paginate(**params)
                    for item in page.get(key, [])]
        except API_ERRORS as error:
            code, message = describe_error(error)
            raise UnreadableError(f"{service}.{operation}", f"{_IAM_PREFIX.get(service, service)}:{operation}", code,
                             message) from None

    def instance_types(self, names: Iterable[str]) -> dict[str, InstanceType] | UnreadableError:
        names = list(names)
        if not names:
            return {}
        try:
            answer = self.pages("ec2", "DescribeInstanceTypes", "InstanceTypes", InstanceTypes=names)
        except UnreadableError as failure:
            if failure.code != "InvalidInstanceType" or len(names) == 1:
                return {} if failure.code == "InvalidInstanceType" else failure
            # One type EC2 does not have in this region fails the whole call: ask for each alone.
            found: dict[str, InstanceType] = {}
            for name in names:
                one = self.instance_types([name])
                if isinstance(one, UnreadableError):
                    return one
                found.update(one)
            return found
        found = {}
        for item in answer:
            network = item.get("NetworkInfo") or {}
            found[item["InstanceType"]] = InstanceType(
                name=item["InstanceType"],
                vcpus=int((item.get("VCpuInfo") or {}).get("DefaultVCpus") or 0),
                efa=bool(network.get("EfaSupported")),
                efa_interfaces=int((network.get("EfaInfo") or {}).get("MaximumEfaInterfaces") or 0),
                network=str(network.get("NetworkPerformance") or "unknown"),
            )
        return found

