"""The AWS stand-ins answer only what AWS would: the SSM stub knows the public parameters AWS
publishes and nothing else, and an error answer must be one the operation's model (or EC2's
documented codes, or the common errors) has, with the status AWS sends it with."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.preflight.conftest import Account
from tests.support.aws_stubs import Answering


def test_an_ssm_parameter_aws_does_not_publish_is_not_found(account: Account) -> None:
    ssm = account.clients("ssm")
    published = "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"
    assert ssm.get_parameter(Name=published)["Parameter"]["Value"].startswith("ami-")
    with pytest.raises(ClientError) as missing:
        ssm.get_parameter(Name="/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/made-up/image_id")
    assert missing.value.response["Error"]["Code"] == "ParameterNotFound"


@pytest.mark.parametrize(
    ("service", "operation", "code"),
    [
        ("ssm", "GetParameter", "NoSuchResourceException"),  # Service Quotas' error, not SSM's
        ("service-quotas", "GetServiceQuota", "ParameterNotFound"),
        ("ec2", "DescribeCapacityReservations", "CapacityReservationNotFound"),  # EC2 spells it otherwise
    ],
)
def test_an_error_the_operation_cannot_answer_is_refused(service: str, operation: str, code: str) -> None:
    client = boto3.client(service, region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    stub = Answering(client, operation, lambda _params: (code, "made up"))
    stub.activate()
    try:
        with pytest.raises(AssertionError, match=code):
            getattr(client, _snake(operation))(**_minimal_params(service, operation))
    finally:
        stub.deactivate()


@pytest.mark.parametrize(
    ("service", "operation", "code", "status"),
    [
        ("ssm", "GetParameter", "ParameterNotFound", 400),
        ("service-quotas", "GetServiceQuota", "ServiceException", 400),
        ("service-quotas", "GetServiceQuota", "ThrottlingException", 400),  # a common error
        ("ec2", "DescribeCapacityReservations", "InvalidCapacityReservationId.NotFound", 400),
    ],
)
def test_a_modeled_error_is_answered_as_aws_sends_it(service: str, operation: str, code: str, status: int) -> None:
    client = boto3.client(service, region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    stub = Answering(client, operation, lambda _params: (code, "as AWS says it"))
    stub.activate()
    try:
        with pytest.raises(ClientError) as answered:
            getattr(client, _snake(operation))(**_minimal_params(service, operation))
    finally:
        stub.deactivate()
    error = answered.value.response
    assert error["Error"]["Code"] == code and error["ResponseMetadata"]["HTTPStatusCode"] == status


def _snake(operation: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation).lstrip("_").replace("a_w_s", "aws")


def _minimal_params(service: str, operation: str) -> dict:
    return {
        ("ssm", "GetParameter"): {"Name": "/x"},
        ("service-quotas", "GetServiceQuota"): {"ServiceCode": "ec2", "QuotaCode": "L-417A185B"},
        ("ec2", "DescribeCapacityReservations"): {"CapacityReservationIds": ["cr-0a1b2c3d4e5f60718"]},
    }[(service, operation)]
