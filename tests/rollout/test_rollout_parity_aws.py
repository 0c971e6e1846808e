"""Parity on AWS: golden sets and reports in S3 (a moto server), and the EKS cluster reached with
the same credentials: its endpoint and CA from DescribeCluster and a token made as
`aws eks get-token` makes it (moto runs no Kubernetes API, so the token's shape is checked here
and the Service-proxy path itself is tested against the Kubernetes API fake on GKE)."""

from __future__ import annotations

import base64
import json
import logging
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from accelplane.clouds.aws.cluster_access import eks_access
from accelplane.clouds.aws.connection import AwsConnection
from accelplane.config.loader import load_stack_file
from tests.rollout.conftest import stack_text
from tests.rollout.test_rollout_parity import ANCHOR, PARITY, _pinned
from tests.support.models.classifier import requests

BUCKET = "acme-parity"


@pytest.fixture
def moto_url(fake_credentials: None) -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        # moto keeps its state per process: start each test from none
        urllib.request.urlopen(urllib.request.Request(f"http://{host}:{port}/moto-api/reset", method="POST")).close()
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def s3_stack(tmp_path: Path, moto_url: str) -> Path:
    boto3.client("s3", endpoint_url=moto_url, region_name="us-east-1").create_bucket(Bucket=BUCKET)
    parity = PARITY.replace("parity/golden.jsonl", f"s3://{BUCKET}/golden/server.jsonl").replace(
        "reports: parity/reports", f"reports: s3://{BUCKET}/reports")
    path = tmp_path / "Pulumi.canary.yaml"
    path.write_text(stack_text("server").replace(ANCHOR, ANCHOR + parity))
    (tmp_path / "requests.jsonl").write_text("\n".join(json.dumps(r) for r in requests(24)) + "\n")
    return path


def test_golden_set_and_report_live_in_s3(s3_stack, moto_url, servers, rollout):
    common = ["--stack-file", s3_stack, "--service", "server", "--endpoint-url", moto_url]
    recorded = rollout("parity", *common, "--record", "--requests", s3_stack.parent / "requests.jsonl",
                       "--baseline-url", servers["baseline"])
    assert recorded.code == 0, recorded.err
    s3 = boto3.client("s3", endpoint_url=moto_url, region_name="us-east-1")
    golden = s3.get_object(Bucket=BUCKET, Key="golden/server.jsonl")["Body"].read()
    import hashlib

    assert _pinned(s3_stack) == hashlib.sha256(golden).hexdigest()
    checked = rollout("parity", *common, "--canary-url", servers["faithful"], "--format", "json")
    assert checked.code == 0, checked.out + checked.err
    key = json.loads(checked.out)["uri"].removeprefix(f"s3://{BUCKET}/")
    assert json.loads(s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())["verdict"] == "pass"


def test_the_eks_cluster_is_reached_with_a_get_token_style_token(tmp_path: Path, moto_url: str) -> None:
    stack = load_stack_file(_write(tmp_path))
    eks = boto3.client("eks", endpoint_url=moto_url, region_name=stack.platform.region)
    eks.create_cluster(name=stack.platform.name, roleArn="arn:aws:iam::123456789012:role/eks",
                       resourcesVpcConfig={"subnetIds": []})
    access = eks_access(stack.platform, AwsConnection(endpoint_url=moto_url))
    assert access.server.startswith("https://") and access.ca_pem
    assert access.token is not None
    token = access.token()
    assert token.startswith("k8s-aws-v1.") and "=" not in token
    encoded = token.removeprefix("k8s-aws-v1.")
    url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    assert query["Action"] == ["GetCallerIdentity"] and query["X-Amz-Expires"] == ["60"]
    assert "x-k8s-aws-id" in query["X-Amz-SignedHeaders"][0].split(";")


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "Pulumi.canary.yaml"
    path.write_text(stack_text("server"))
    return path


def test_a_missing_cluster_is_bad_input_naming_the_option(tmp_path: Path, moto_url: str, rollout: Any) -> None:
    path = tmp_path / "Pulumi.canary.yaml"
    path.write_text(stack_text("server").replace(ANCHOR, ANCHOR + PARITY))
    (tmp_path / "requests.jsonl").write_text("\n".join(json.dumps(r) for r in requests(4)) + "\n")
    result = rollout("parity", "--stack-file", path, "--service", "server", "--endpoint-url", moto_url,
                     "--record", "--requests", tmp_path / "requests.jsonl")
    assert result.code == 2 and "cannot read EKS cluster" in result.err and "--baseline-url" in result.err


def test_a_cluster_ca_that_is_not_pem_is_bad_input(tmp_path: Path, moto_url: str, rollout: Any) -> None:
    """moto answers DescribeCluster with random bytes as the CA: refused with the reason, no traceback."""
    path = tmp_path / "Pulumi.canary.yaml"
    path.write_text(stack_text("server").replace(ANCHOR, ANCHOR + PARITY))
    (tmp_path / "requests.jsonl").write_text("\n".join(json.dumps(r) for r in requests(4)) + "\n")
    stack = load_stack_file(path)
    boto3.client("eks", endpoint_url=moto_url, region_name=stack.platform.region).create_cluster(
        name=stack.platform.name, roleArn="arn:aws:iam::123456789012:role/eks", resourcesVpcConfig={"subnetIds": []})
    result = rollout("parity", "--stack-file", path, "--service", "server", "--endpoint-url", moto_url,
                     "--record", "--requests", tmp_path / "requests.jsonl")
    assert result.code == 2 and "is not a PEM certificate" in result.err
