"""Pulumi mocks that answer like AWS would: ids, ARNs, endpoints, OIDC issuers.

Mocks accept any input (docs/design.md pitfalls): validation happens in the config layer. What they
must do is return outputs realistic enough that the program's `apply`s see the same shapes as in
a real deployment (an EKS issuer URL, a cluster security group id, an ALB DNS name).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pulumi

FAKE_ACCOUNT = "123456789012"

# Type token -> (id prefix, ARN service, ARN resource template); `{id}`/`{name}` filled in.
_ID_AND_ARN: dict[str, tuple[str, str, str]] = {
    "aws:ec2/vpc:Vpc": ("vpc-", "ec2", "vpc/{id}"),
    "aws:ec2/subnet:Subnet": ("subnet-", "ec2", "subnet/{id}"),
    "aws:ec2/internetGateway:InternetGateway": ("igw-", "ec2", "internet-gateway/{id}"),
    "aws:ec2/natGateway:NatGateway": ("nat-", "ec2", "natgateway/{id}"),
    "aws:ec2/eip:Eip": ("eipalloc-", "ec2", "elastic-ip/{id}"),
    "aws:ec2/routeTable:RouteTable": ("rtb-", "ec2", "route-table/{id}"),
    "aws:ec2/securityGroup:SecurityGroup": ("sg-", "ec2", "security-group/{id}"),
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": ("sg-", "ec2", "security-group/{id}"),
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": ("sgr-", "ec2", "security-group-rule/{id}"),
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": ("sgr-", "ec2", "security-group-rule/{id}"),
    "aws:ec2/launchTemplate:LaunchTemplate": ("lt-", "ec2", "launch-template/{id}"),
    "aws:ec2/capacityBlockReservation:CapacityBlockReservation": ("cr-", "ec2", "capacity-reservation/{id}"),
    "aws:ec2/placementGroup:PlacementGroup": ("pg-", "ec2", "placement-group/{name}"),
    "aws:kms/key:Key": ("", "kms", "key/{id}"),
    "aws:kms/alias:Alias": ("", "kms", "{name}"),
    "aws:iam/role:Role": ("AROA", "iam", "role/{name}"),
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": ("", "iam", "oidc-provider/{host}"),
    "aws:eks/cluster:Cluster": ("", "eks", "cluster/{name}"),
    "aws:eks/nodeGroup:NodeGroup": ("", "eks", "nodegroup/{cluster}/{name}/{id}"),
    "aws:s3/bucket:Bucket": ("", "s3", "{name}"),
    "aws:lb/loadBalancer:LoadBalancer": ("", "elasticloadbalancing", "loadbalancer/app/{name}/{id}"),
    "aws:lb/targetGroup:TargetGroup": ("", "elasticloadbalancing", "targetgroup/{name}/{id}"),
    "aws:lb/listener:Listener": ("", "elasticloadbalancing", "listener/app/{name}/{id}"),
    # arn:aws:elasticloadbalancing:<region>:<account>:truststore/<name>/<16 hex> (ELB User Guide, trust stores).
    "aws:lb/trustStore:TrustStore": ("", "elasticloadbalancing", "truststore/{name}/{id}"),
    "aws:secretsmanager/secret:Secret": ("", "secretsmanager", "secret:{name}-AbCdEf"),
    "aws:cloudwatch/logGroup:LogGroup": ("", "logs", "log-group:{name}"),
    "aws:cloudtrail/trail:Trail": ("", "cloudtrail", "trail/{name}"),
    # A regional web ACL: arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id>.
    "aws:wafv2/webAcl:WebAcl": ("", "wafv2", "regional/webacl/{name}/{id}"),
    # DataSync: arn:aws:datasync:<region>:<account>:task/task-<17 hex>, location/loc-<17 hex>.
    "aws:datasync/task:Task": ("task-", "datasync", "task/{id}"),
    "aws:datasync/s3Location:S3Location": ("loc-", "datasync", "location/{id}"),
    "aws:datasync/locationObjectStorage:LocationObjectStorage": ("loc-", "datasync", "location/{id}"),
}
_GLOBAL_SERVICES = {"iam", "s3"}
# An Application Load Balancer's canonical hosted zone per region (AWS General Reference, "Elastic Load
# Balancing endpoints and quotas", Application Load Balancers column); another region gets a made-up id.
_ALB_ZONE_IDS = {"us-east-1": "Z35SXDOTRQ7X7K", "us-east-2": "Z3AADJGX6KTTL2", "us-west-1": "Z368ELLRRE2KJ0",
                 "us-west-2": "Z1H1FL5HABSF5"}


def _digest(*parts: str, length: int = 17) -> str:
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:length]


class AwsLikeMocks(pulumi.runtime.Mocks):
    """Deterministic, AWS-shaped outputs: the same program gives the same ids every run."""

    def __init__(self, region: str, account: str = FAKE_ACCOUNT) -> None:
        self.region = region
        self.account = account

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        inputs = dict(args.inputs)
        if not args.custom:
            return None, inputs
        prefix, service, template = _ID_AND_ARN.get(args.typ, ("", "", ""))
        physical = (
            inputs.get("name")
            or inputs.get("bucket")
            or inputs.get("nodeGroupName")
            or (inputs.get("bucketPrefix", "") + _digest(args.name, length=8) if "bucketPrefix" in inputs else None)
            or (inputs.get("namePrefix", "") + _digest(args.name, length=6) if "namePrefix" in inputs else None)
            or f"{args.name}-{_digest(args.name, length=7)}"
        )
        resource_id = prefix + _digest(args.typ, args.name)
        state: dict[str, Any] = {**inputs, "id": resource_id}
        if service:
            region = "" if service in _GLOBAL_SERVICES else self.region
            account = "" if service == "s3" else self.account
            resource = template.format(
                id=resource_id,
                name=physical,
                cluster=inputs.get("clusterName", ""),
                host=str(inputs.get("url", "")).removeprefix("https://"),
            )
            state["arn"] = f"arn:aws:{service}:{region}:{account}:{resource}"
        state.update(self._extra_outputs(args.typ, args.name, inputs, physical, resource_id))
        return resource_id, state

    def _extra_outputs(
        self, typ: str, name: str, inputs: dict[str, Any], physical: str, resource_id: str
    ) -> dict[str, Any]:
        digest = _digest(typ, name, length=32).upper()
        if typ == "aws:eks/cluster:Cluster":
            issuer = f"https://oidc.eks.{self.region}.amazonaws.com/id/{digest}"
            return {
                "name": physical,
                "endpoint": f"https://{digest}.gr7.{self.region}.eks.amazonaws.com",
                "certificateAuthority": {"data": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="},
                "identities": [{"oidcs": [{"issuer": issuer}]}],
                "vpcConfig": {**inputs.get("vpcConfig", {}), "clusterSecurityGroupId": "sg-" + _digest(name)},
                "status": "ACTIVE",
            }
        if typ == "aws:s3/bucket:Bucket":
            return {"bucket": physical, "bucketRegionalDomainName": f"{physical}.s3.{self.region}.amazonaws.com"}
        if typ == "aws:lb/loadBalancer:LoadBalancer":
            return {"dnsName": f"{name}-{resource_id[:9]}.{self.region}.elb.amazonaws.com", "name": physical[:32],
                    "zoneId": _ALB_ZONE_IDS.get(self.region, "Z" + _digest(self.region, length=13).upper())}
        if typ == "aws:ec2/launchTemplate:LaunchTemplate":
            return {"latestVersion": 1, "defaultVersion": 1}
        if typ == "aws:kms/key:Key":
            return {"keyId": resource_id}
        if typ == "aws:eks/nodeGroup:NodeGroup":
            return {"nodeGroupName": physical, "status": "ACTIVE"}
        if typ in ("aws:iam/role:Role", "aws:ec2/placementGroup:PlacementGroup", "aws:secretsmanager/secret:Secret"):
            return {"name": physical}
        return {}

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return self._invoke(args.token), []  # (outputs, failures): a dict-only return breaks the type contract

    def _invoke(self, token: str) -> dict[str, Any]:
        if token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {
                "accountId": self.account,
                "arn": f"arn:aws:iam::{self.account}:user/offline-preview",
                "userId": "AIDAOFFLINEPREVIEW",
                "id": self.account,
            }
        if token == "aws:index/getPartition:getPartition":
            return {"partition": "aws", "dnsSuffix": "amazonaws.com", "id": "aws", "reverseDnsSuffix": "com.amazonaws"}
        if token == "aws:index/getRegion:getRegion":
            return {"name": self.region, "region": self.region, "id": self.region}
        return {}
