"""The EKS cluster's Kubernetes API with the AWS credentials rollout already uses: its endpoint and
CA from `eks:DescribeCluster`, and a bearer token made as `aws eks get-token` makes it.

The token (AWS IAM Authenticator's format, which EKS's API server accepts) is `k8s-aws-v1.` and the
URL-safe base64, unpadded, of a presigned `sts:GetCallerIdentity` GET URL whose signature covers
the header `x-k8s-aws-id: <cluster name>` and that expires in 60 seconds; the API server calls that
URL to learn who is asking. No kubeconfig, aws CLI or exec plugin is needed.
"""

from __future__ import annotations

import base64
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from accelplane.cloud_support import Connection
from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.connection import aws_connection
from accelplane.clouds.aws.declaration import AwsPlatform, aws_platform
from accelplane.declaration import Platform
from accelplane.rollout.kubernetes_api import CloudClusterAccess, ClusterAccess
from accelplane.rollout.route import RouteError

TOKEN_PREFIX = "k8s-aws-v1."
CLUSTER_HEADER = "x-k8s-aws-id"
TOKEN_SECONDS = 60


def eks_token(clients: AwsClients, cluster: str) -> str:
    sts = clients.session.client("sts", region_name=clients.region, endpoint_url=clients.endpoint_url)

    def add_cluster_header(request: Any, **_: Any) -> None:
        request.headers[CLUSTER_HEADER] = cluster

    sts.meta.events.register("before-sign.sts.GetCallerIdentity", add_cluster_header)
    url = sts.generate_presigned_url("get_caller_identity", Params={}, ExpiresIn=TOKEN_SECONDS, HttpMethod="GET")
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def eks_access(platform: AwsPlatform, connection: Connection) -> ClusterAccess:
    clients = AwsClients(platform.region, endpoint_url=aws_connection(connection).endpoint_url,
                         profile=aws_connection(connection).profile, max_attempts=4)
    try:
        cluster = clients("eks").describe_cluster(name=platform.name)["cluster"]
    except (BotoCoreError, ClientError) as error:
        raise RouteError(f"cannot read EKS cluster {platform.name}: {error}") from None
    endpoint = cluster.get("endpoint")
    ca = (cluster.get("certificateAuthority") or {}).get("data")
    if not endpoint or not ca:
        raise RouteError(f"EKS cluster {platform.name} has no endpoint or CA yet (status {cluster.get('status')})")
    return ClusterAccess(server=str(endpoint).rstrip("/"), ca_pem=base64.b64decode(ca),
                         token=lambda: eks_token(clients, platform.name), where=f"EKS cluster {platform.name}")


def _access(platform: Platform, connection: Connection) -> ClusterAccess:
    return eks_access(aws_platform(platform), connection)


CLUSTER_ACCESS = CloudClusterAccess("aws", _access)  # this cloud's `accelplane.cluster_access` entry point
