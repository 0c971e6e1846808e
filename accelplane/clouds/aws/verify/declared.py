"""The declared side of an AWS stack: its offline graph with the identities AWS resources carry.

Besides ids, ARNs and autonamed names (`accelplane.verify.declared`), an EKS cluster's outputs name
two resources EKS creates for it: the cluster security group and the OIDC issuer, which other
declared inputs (rules, trust policies) refer to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from accelplane.clouds.aws.mocks import FAKE_ACCOUNT, AwsLikeMocks
from accelplane.config.loader import StackConfig
from accelplane.engine.graph import OfflineGraph
from accelplane.rules.view import Resource
from accelplane.verify.canonical import symbol
from accelplane.verify.declared import DeclaredPlatform, declared_platform

CLUSTER = "aws:eks/cluster:Cluster"


def issuer_host(cluster_outputs: Mapping[str, Any]) -> str | None:
    identities = cluster_outputs.get("identities") or []
    try:
        issuer = identities[0]["oidcs"][0]["issuer"]
    except (IndexError, KeyError, TypeError):
        return None
    return issuer.removeprefix("https://") if isinstance(issuer, str) else None


def eks_identities(resource: Resource) -> Iterable[tuple[str | None, str]]:
    if resource.type != CLUSTER:
        return ()
    cluster_sg = (resource.outputs.get("vpcConfig") or {}).get("clusterSecurityGroupId")
    return (
        (cluster_sg, symbol(resource.name, "clusterSecurityGroup")),
        (issuer_host(resource.outputs), symbol(resource.name, "oidcIssuer")),
    )


def aws_declared(stack: StackConfig, graph: OfflineGraph) -> DeclaredPlatform:
    mocks = AwsLikeMocks(region=stack.platform.region)
    return declared_platform(stack, graph, mocks, FAKE_ACCOUNT, eks_identities)
