"""Create a declared platform in moto with boto3, the way `pulumi up` would create it in AWS.

Walks the offline graph in registration order (a resource is registered after everything its
inputs refer to) and creates each AWS resource the verify command reads, replacing every mock
identity in its inputs (ids, ARNs, autonamed names, the OIDC issuer) with the live one. Provider
behaviour is reproduced where it shapes what AWS shows: Pulumi autonaming (`<name>-<7 hex>`), the
Terraform provider revoking the default egress rule of a new security group, and an emptied default
security group.

Where moto 5.2.5 lacks what AWS has, the gap is filled on moto's own objects, each in one place and
named here, so no test passes because of a moto quirk:
- EKS: `DescribeCluster` has no `clusterSecurityGroupId` and no `accessConfig` (AWS creates the
  cluster security group itself): set on moto's cluster object;
- IAM: AWS managed policies are not loaded: the ones the declaration attaches are added from
  moto's own copy of their documents;
- ACM: the listener's certificate ARN is the declaration's (another account's): a test
  certificate is imported and filed under that ARN;
- S3: moto applies a bucket policy's `Deny` to object reads and writes ignoring its `Condition`,
  so the declared TLS-only policy (`Deny` when `aws:SecureTransport` is false) would deny every
  request; `honour_secure_transport()` makes moto skip exactly those statements, as AWS does for
  requests over TLS (all boto3 requests to AWS are).
- Lambda: moto runs a function in Docker, which is not here; the tests' `mock_aws` uses moto's
  Docker-less Lambda, which answers an invocation without running the code, so `RotateSecret` runs
  (the rotation function is the team's, made by `rotation_function` with a role Lambda may assume);
- EKS: a node group always reports a `remoteAccessSecurityGroup` whose id is not even well formed
  (AWS creates one only for `remoteAccess`): `fill_eks_gaps()` leaves it out without remote access;
- EKS: `ListAccessEntries`, `DescribeAccessEntry`, `ListAssociatedAccessPolicies` and `ListAddons`
  answer 404 "Not yet implemented": `fill_eks_gaps()` answers them from what `create()` recorded on
  moto's cluster object, i.e. what AWS holds for the platform as created: one `EC2_LINUX` entry per
  node group role with no access policy (EKS makes it with the node group, in the API authentication
  modes), the cluster creator's `STANDARD` entry made with the cluster with the cluster-admin policy
  (`bootstrapClusterCreatorAdminPermissions`), and no managed add-on (the program declares none).
Not emulated at all (and so not tested against moto): granting access entries or installing add-ons
by hand, changing the control-plane version, the authentication mode, a node group's launch template
version or AMI release, a KMS key's rotation period, IAM `Condition` evaluation, unhealthy targets
(moto reports every registered target healthy). Those are tested on recorded response shapes with
botocore's Stubber instead.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import io
import json
import re
import secrets
import zipfile
from collections.abc import Callable
from typing import Any

import boto3
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from accelplane.clouds.aws.verify.declared import issuer_host
from accelplane.rules.view import Resource
from accelplane.verify.canonical import Symbols
from accelplane.verify.declared import DeclaredPlatform

ACCOUNT = "123456789012"
# Who ran `pulumi up`: with `bootstrapClusterCreatorAdminPermissions`, EKS gives it an access entry.
CLUSTER_CREATOR = f"arn:aws:iam::{ACCOUNT}:role/platform-deployer"
CLUSTER_ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
SECRET_PLACEHOLDER_VALUE = "placeholder: verify never reads this"
_RENAMES = {
    "securityGroups": "Groups",
    "kmsMasterKeyId": "KMSMasterKeyID",
    "sseAlgorithm": "SSEAlgorithm",
    "id": "ID",
    "redirect": "RedirectConfig",
}
# Listener and rule actions: Pulumi's names for the ELBv2 API's (weighted forwards, fixed responses).
_ACTION_RENAMES = {
    "forward": "ForwardConfig",
    "arn": "TargetGroupArn",
    "stickiness": "TargetGroupStickinessConfig",
    "duration": "DurationSeconds",
    "fixedResponse": "FixedResponseConfig",
}
# Rule conditions: Pulumi's key -> the API's `Field` and its config member.
_CONDITIONS = {
    "pathPattern": ("path-pattern", "PathPatternConfig"),
    "hostHeader": ("host-header", "HostHeaderConfig"),
    "httpRequestMethod": ("http-request-method", "HttpRequestMethodConfig"),
    "sourceIp": ("source-ip", "SourceIpConfig"),
}


def autoname(logical: str, limit: int | None = None) -> str:
    suffix = secrets.token_hex(4)[:7]
    if limit:
        logical = logical[: limit - 8]
    return f"{logical}-{suffix}"


def tag_list(tags: dict[str, str] | None) -> list[dict[str, str]]:
    return [{"Key": k, "Value": v} for k, v in (tags or {}).items()]


def to_api(value: Any, renames: dict[str, str] | None = None) -> Any:
    """Wire-format inputs (camelCase, booleans as strings) to boto3 parameters (PascalCase)."""
    renames = {**_RENAMES, **(renames or {})}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                continue
            if key == "tags" and isinstance(item, dict):
                out["Tags"] = tag_list(item)
                continue
            name = renames.get(key) or key[:1].upper() + key[1:]
            out[name] = to_api(item, renames)
        return out
    if isinstance(value, list):
        return [to_api(item, renames) for item in value]
    if value in ("true", "false"):
        return value == "true"
    return value


def to_api_shape(value: Any, shape: Any) -> Any:
    """Wire-format inputs to boto3 parameters by the operation's own model: member names matched
    case-insensitively (`cloudwatchMetricsEnabled` is WAF's `CloudWatchMetricsEnabled`)."""
    if shape.type_name == "structure" and isinstance(value, dict):
        members = {name.lower(): name for name in shape.members}
        return {members[key.lower()]: to_api_shape(item, shape.members[members[key.lower()]])
                for key, item in value.items() if item is not None}
    if shape.type_name == "list" and isinstance(value, list):
        return [to_api_shape(item, shape.member) for item in value]
    return value


def self_signed_certificate(common_name: str = "api.example.com") -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .sign(key, hashes.SHA256())
    )
    return (
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )


class MotoPlatform:
    """The declared platform, created live in moto; `live_id` maps a declared name to what was created."""

    def __init__(
        self,
        declared: DeclaredPlatform,
        *,
        endpoint_url: str | None = None,
        session: boto3.Session | None = None,
        secret_values: bool = True,
    ) -> None:
        self.declared = declared
        self.secret_values = secret_values
        self.region = declared.platform.region
        self.session = session or boto3.Session(region_name=self.region)
        self.endpoint_url = endpoint_url
        self.tokens = Symbols()  # declared identity -> live identity
        self.tokens.add(declared.account, ACCOUNT)
        self.live_id: dict[str, str] = {}  # declared logical name -> live id
        self.skipped: list[str] = []
        self._clients: dict[str, Any] = {}

    def client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self.session.client(service, endpoint_url=self.endpoint_url)
        return self._clients[service]

    def resolve(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.tokens.apply(value)
        if isinstance(value, dict):
            return {self.tokens.apply(k): self.resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        return value

    def _record(self, resource: Resource, live_id: str, *, arn: str | None = None, name: str | None = None) -> None:
        self.live_id[resource.name] = live_id
        if resource.id:
            self.tokens.add(resource.id, live_id)
        outputs = resource.outputs
        if arn and isinstance(outputs.get("arn"), str):
            self.tokens.add(outputs["arn"], arn)
        for key in ("name", "bucket"):
            value = outputs.get(key)
            if name and isinstance(value, str) and value not in resource.props.values():
                self.tokens.add(value, name)

    # -- the walk ------------------------------------------------------------------------------

    def create(self) -> MotoPlatform:
        handlers: dict[str, Callable[[Resource, dict[str, Any]], None]] = {
            "aws:ec2/vpc:Vpc": self._vpc,
            "aws:ec2/subnet:Subnet": self._subnet,
            "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": self._default_security_group,
            "aws:ec2/securityGroup:SecurityGroup": self._security_group,
            "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": self._rule,
            "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": self._rule,
            "aws:kms/key:Key": self._key,
            "aws:kms/alias:Alias": self._alias,
            "aws:iam/role:Role": self._role,
            "aws:iam/rolePolicy:RolePolicy": self._role_policy,
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment": self._attachment,
            "aws:cloudwatch/logGroup:LogGroup": self._log_group,
            "aws:eks/cluster:Cluster": self._cluster,
            "aws:iam/openIdConnectProvider:OpenIdConnectProvider": self._oidc,
            "aws:ec2/placementGroup:PlacementGroup": self._placement_group,
            "aws:ec2/launchTemplate:LaunchTemplate": self._launch_template,
            "aws:eks/nodeGroup:NodeGroup": self._node_group,
            "aws:s3/bucket:Bucket": self._bucket,
            "aws:s3/bucketOwnershipControls:BucketOwnershipControls": self._bucket_setting,
            "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": self._bucket_setting,
            "aws:s3/bucketVersioning:BucketVersioning": self._bucket_setting,
            "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": (
                self._bucket_setting
            ),
            "aws:s3/bucketPolicy:BucketPolicy": self._bucket_setting,
            "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": self._bucket_setting,
            "aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration": self._bucket_setting,
            "aws:cloudtrail/trail:Trail": self._trail,
            "aws:lb/loadBalancer:LoadBalancer": self._load_balancer,
            "aws:lb/targetGroup:TargetGroup": self._target_group,
            "aws:lb/listener:Listener": self._listener,
            "aws:lb/listenerRule:ListenerRule": self._listener_rule,
            "aws:secretsmanager/secret:Secret": self._secret,
            "aws:secretsmanager/secretPolicy:SecretPolicy": self._secret_policy,
            "aws:secretsmanager/secretVersion:SecretVersion": self._secret_version,
            "aws:secretsmanager/secretRotation:SecretRotation": self._secret_rotation,
            "aws:lambda/permission:Permission": self._lambda_permission,
            "aws:wafv2/webAcl:WebAcl": self._web_acl,
            "aws:wafv2/webAclAssociation:WebAclAssociation": self._web_acl_association,
        }
        for resource in self.declared.resources:
            handler = handlers.get(resource.type)
            if handler is None:
                if resource.type.startswith("aws:"):
                    self.skipped.append(resource.type)  # routes, NAT, ...: verify does not read them
                continue
            handler(resource, self.resolve(dict(resource.props)))
        return self

    # -- network -------------------------------------------------------------------------------

    def _vpc(self, resource: Resource, props: dict[str, Any]) -> None:
        ec2 = self.client("ec2")
        vpc = ec2.create_vpc(
            CidrBlock=props["cidrBlock"],
            TagSpecifications=[{"ResourceType": "vpc", "Tags": tag_list(props.get("tags"))}],
        )["Vpc"]
        for attribute in ("EnableDnsSupport", "EnableDnsHostnames"):
            ec2.modify_vpc_attribute(VpcId=vpc["VpcId"], **{attribute: {"Value": True}})
        self._record(resource, vpc["VpcId"], arn=f"arn:aws:ec2:{self.region}:{ACCOUNT}:vpc/{vpc['VpcId']}")

    def _subnet(self, resource: Resource, props: dict[str, Any]) -> None:
        subnet = self.client("ec2").create_subnet(
            VpcId=props["vpcId"],
            CidrBlock=props["cidrBlock"],
            AvailabilityZone=props["availabilityZone"],
            TagSpecifications=[{"ResourceType": "subnet", "Tags": tag_list(props.get("tags"))}],
        )["Subnet"]
        self._record(resource, subnet["SubnetId"], arn=subnet.get("SubnetArn"))

    def _revoke_all(self, group: dict[str, Any]) -> None:
        ec2 = self.client("ec2")
        if group.get("IpPermissionsEgress"):
            ec2.revoke_security_group_egress(GroupId=group["GroupId"], IpPermissions=group["IpPermissionsEgress"])
        if group.get("IpPermissions"):
            ec2.revoke_security_group_ingress(GroupId=group["GroupId"], IpPermissions=group["IpPermissions"])

    def _default_security_group(self, resource: Resource, props: dict[str, Any]) -> None:
        ec2 = self.client("ec2")
        group = ec2.describe_security_groups(
            Filters=[{"Name": "vpc-id", "Values": [props["vpcId"]]}, {"Name": "group-name", "Values": ["default"]}]
        )["SecurityGroups"][0]
        self._revoke_all(group)  # DefaultSecurityGroup without rules empties the group
        ec2.create_tags(Resources=[group["GroupId"]], Tags=tag_list(props.get("tags")))
        self._record(resource, group["GroupId"], arn=group.get("SecurityGroupArn"))

    def _security_group(self, resource: Resource, props: dict[str, Any]) -> None:
        ec2 = self.client("ec2")
        group_id = ec2.create_security_group(
            GroupName=autoname(resource.name),
            Description=props.get("description", "Managed by Pulumi"),
            VpcId=props["vpcId"],
            TagSpecifications=[{"ResourceType": "security-group", "Tags": tag_list(props.get("tags"))}],
        )["GroupId"]
        # The Terraform provider revokes AWS's default allow-all egress rule of a new group.
        self._revoke_all(ec2.describe_security_groups(GroupIds=[group_id])["SecurityGroups"][0])
        self._record(resource, group_id, arn=f"arn:aws:ec2:{self.region}:{ACCOUNT}:security-group/{group_id}")

    def _rule(self, resource: Resource, props: dict[str, Any]) -> None:
        permission: dict[str, Any] = {"IpProtocol": props["ipProtocol"]}
        if props["ipProtocol"] != "-1":
            permission.update(FromPort=props["fromPort"], ToPort=props["toPort"])
        description = {"Description": props["description"]} if props.get("description") else {}
        if props.get("cidrIpv4"):
            permission["IpRanges"] = [{"CidrIp": props["cidrIpv4"], **description}]
        elif props.get("cidrIpv6"):
            permission["Ipv6Ranges"] = [{"CidrIpv6": props["cidrIpv6"], **description}]
        elif props.get("referencedSecurityGroupId"):
            permission["UserIdGroupPairs"] = [{"GroupId": props["referencedSecurityGroupId"], **description}]
        elif props.get("prefixListId"):
            permission["PrefixListIds"] = [{"PrefixListId": props["prefixListId"], **description}]
        egress = "Egress" in resource.type
        authorize = (
            self.client("ec2").authorize_security_group_egress
            if egress
            else self.client("ec2").authorize_security_group_ingress
        )
        rule = authorize(
            GroupId=props["securityGroupId"],
            IpPermissions=[permission],
            TagSpecifications=[{"ResourceType": "security-group-rule", "Tags": tag_list(props.get("tags"))}],
        )["SecurityGroupRules"][0]
        self._record(resource, rule["SecurityGroupRuleId"])

    # -- KMS, IAM, logs ------------------------------------------------------------------------

    def _key(self, resource: Resource, props: dict[str, Any]) -> None:
        kms = self.client("kms")
        metadata = kms.create_key(
            Description=props.get("description", ""),
            Policy=props["policy"],
            Tags=[{"TagKey": k, "TagValue": v} for k, v in (props.get("tags") or {}).items()],
        )["KeyMetadata"]
        if props.get("enableKeyRotation"):
            kms.enable_key_rotation(
                KeyId=metadata["KeyId"], RotationPeriodInDays=props.get("rotationPeriodInDays", 365)
            )
        self._record(resource, metadata["KeyId"], arn=metadata["Arn"])

    def _alias(self, resource: Resource, props: dict[str, Any]) -> None:
        self.client("kms").create_alias(AliasName=props["name"], TargetKeyId=props["targetKeyId"])
        self._record(resource, props["name"])

    def _role(self, resource: Resource, props: dict[str, Any]) -> None:
        name = props.get("name") or autoname(resource.name)
        role = self.client("iam").create_role(
            RoleName=name,
            AssumeRolePolicyDocument=props["assumeRolePolicy"],
            MaxSessionDuration=props.get("maxSessionDuration", 3600),
            Tags=tag_list(props.get("tags")),
        )["Role"]
        self._record(resource, name, arn=role["Arn"], name=name)

    def _role_policy(self, resource: Resource, props: dict[str, Any]) -> None:
        self.client("iam").put_role_policy(
            RoleName=props["role"],
            PolicyName=props.get("name") or autoname(resource.name),
            PolicyDocument=props["policy"],
        )
        self._record(resource, f"{props['role']}:{resource.name}")

    def _attachment(self, resource: Resource, props: dict[str, Any]) -> None:
        arn = props["policyArn"]
        if arn.startswith("arn:aws:iam::aws:policy/"):
            load_aws_managed_policy(arn)
        self.client("iam").attach_role_policy(RoleName=props["role"], PolicyArn=arn)
        self._record(resource, f"{props['role']}/{arn}")

    def _log_group(self, resource: Resource, props: dict[str, Any]) -> None:
        logs = self.client("logs")
        logs.create_log_group(logGroupName=props["name"], tags=props.get("tags") or {})
        if props.get("retentionInDays"):
            logs.put_retention_policy(logGroupName=props["name"], retentionInDays=props["retentionInDays"])
        self._record(resource, props["name"], arn=f"arn:aws:logs:{self.region}:{ACCOUNT}:log-group:{props['name']}")

    # -- EKS -----------------------------------------------------------------------------------

    def _cluster(self, resource: Resource, props: dict[str, Any]) -> None:
        eks, ec2 = self.client("eks"), self.client("ec2")
        vpc = props["vpcConfig"]
        encryption = props.get("encryptionConfig")
        cluster = eks.create_cluster(
            name=props["name"],
            version=props["version"],
            roleArn=props["roleArn"],
            resourcesVpcConfig={
                k: v
                for k, v in {
                    "subnetIds": vpc["subnetIds"],
                    "endpointPrivateAccess": vpc.get("endpointPrivateAccess"),
                    "endpointPublicAccess": vpc.get("endpointPublicAccess"),
                    "publicAccessCidrs": vpc.get("publicAccessCidrs"),
                }.items()
                if v is not None
            },
            encryptionConfig=[
                to_api(encryption, {"provider": "provider", "keyArn": "keyArn", "resources": "resources"})
            ]
            if encryption
            else [],
            logging={"clusterLogging": [{"types": props.get("enabledClusterLogTypes", []), "enabled": True}]},
            tags=props.get("tags") or {},
        )["cluster"]
        # What AWS does and moto does not: the cluster security group, and the access config.
        subnet = ec2.describe_subnets(SubnetIds=vpc["subnetIds"][:1])["Subnets"][0]
        cluster_sg = ec2.create_security_group(
            GroupName=f"eks-cluster-sg-{props['name']}-{secrets.token_hex(5)}",
            Description="EKS created security group",
            VpcId=subnet["VpcId"],
            TagSpecifications=[
                {"ResourceType": "security-group", "Tags": [{"Key": "aws:eks:cluster-name", "Value": props["name"]}]}
            ],
        )["GroupId"]
        moto_cluster = _moto_eks_cluster(props["name"], self.region)
        moto_cluster.resources_vpc_config["clusterSecurityGroupId"] = cluster_sg
        if props.get("accessConfig"):
            moto_cluster.access_config = {
                "authenticationMode": props["accessConfig"].get("authenticationMode"),
                "bootstrapClusterCreatorAdminPermissions": props["accessConfig"].get(
                    "bootstrapClusterCreatorAdminPermissions", True
                ),
            }
        # What AWS also does: all traffic from the group itself (the egress rule moto adds itself).
        ec2.authorize_security_group_ingress(
            GroupId=cluster_sg, IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": cluster_sg}]}]
        )
        access = props.get("accessConfig") or {}
        moto_cluster.accelplane_addons = []
        moto_cluster.accelplane_access_entries = {}
        if access.get("bootstrapClusterCreatorAdminPermissions", True):
            moto_cluster.accelplane_access_entries[CLUSTER_CREATOR] = access_entry(
                props["name"], CLUSTER_CREATOR, "STANDARD", cluster["createdAt"]
            )
            moto_cluster.accelplane_access_policies = {
                CLUSTER_CREATOR: [
                    {
                        "policyArn": CLUSTER_ADMIN_POLICY,
                        "accessScope": {"type": "cluster", "namespaces": []},
                        "associatedAt": cluster["createdAt"],
                        "modifiedAt": cluster["createdAt"],
                    }
                ]
            }
        self._record(resource, props["name"], arn=cluster["arn"])
        declared_sg = (resource.outputs.get("vpcConfig") or {}).get("clusterSecurityGroupId")
        self.tokens.add(declared_sg, cluster_sg)
        self.tokens.add(issuer_host(resource.outputs), cluster["identity"]["oidc"]["issuer"].removeprefix("https://"))

    def _oidc(self, resource: Resource, props: dict[str, Any]) -> None:
        arn = self.client("iam").create_open_id_connect_provider(
            Url=props["url"],
            ClientIDList=props.get("clientIdLists", []),
            ThumbprintList=["9e99a48a9960b14926bb7f3b02e22da2b0ab7280"],
            Tags=tag_list(props.get("tags")),
        )["OpenIDConnectProviderArn"]
        self._record(resource, arn, arn=arn)

    def _placement_group(self, resource: Resource, props: dict[str, Any]) -> None:
        name = autoname(resource.name)
        self.client("ec2").create_placement_group(
            GroupName=name,
            Strategy=props["strategy"],
            TagSpecifications=[{"ResourceType": "placement-group", "Tags": tag_list(props.get("tags"))}],
        )
        self._record(resource, name, name=name)

    def _launch_template(self, resource: Resource, props: dict[str, Any]) -> None:
        name = autoname(resource.name)
        data = {k: v for k, v in props.items() if k not in ("name", "description", "tags", "updateDefaultVersion")}
        template = self.client("ec2").create_launch_template(
            LaunchTemplateName=name,
            VersionDescription=props.get("description", ""),
            LaunchTemplateData=to_api(data),
            TagSpecifications=[{"ResourceType": "launch-template", "Tags": tag_list(props.get("tags"))}],
        )["LaunchTemplate"]
        self._record(resource, template["LaunchTemplateId"], name=name)

    def _node_group(self, resource: Resource, props: dict[str, Any]) -> None:
        template = props.get("launchTemplate")
        self.client("eks").create_nodegroup(
            **{
                k: v
                for k, v in {
                    "clusterName": props["clusterName"],
                    "nodegroupName": props["nodeGroupName"],
                    "scalingConfig": props["scalingConfig"],
                    "subnets": props["subnetIds"],
                    "instanceTypes": props.get("instanceTypes"),
                    "amiType": props.get("amiType"),
                    "nodeRole": props["nodeRoleArn"],
                    "labels": props.get("labels"),
                    "taints": props.get("taints") or None,
                    "capacityType": props.get("capacityType"),
                    "releaseVersion": props.get("releaseVersion"),
                    "version": props.get("version"),
                    "updateConfig": props.get("updateConfig"),
                    "launchTemplate": {"id": template["id"], "version": "1"} if template else None,
                    "tags": props.get("tags"),
                }.items()
                if v is not None
            }
        )
        moto_cluster = _moto_eks_cluster(props["clusterName"], self.region)
        entries = getattr(moto_cluster, "accelplane_access_entries", {})
        if props["nodeRoleArn"] not in entries:  # EKS makes the node role's entry with the node group
            entries[props["nodeRoleArn"]] = access_entry(
                props["clusterName"], props["nodeRoleArn"], "EC2_LINUX", dt.datetime.now(dt.UTC)
            )
        self._record(resource, f"{props['clusterName']}:{props['nodeGroupName']}")

    # -- S3 ------------------------------------------------------------------------------------

    def _bucket(self, resource: Resource, props: dict[str, Any]) -> None:
        s3 = self.client("s3")
        name = props.get("bucket") or (props.get("bucketPrefix", resource.name + "-") + secrets.token_hex(6))
        location = (
            {} if self.region == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": self.region}}
        )
        # Object Lock only at creation (CreateBucket's x-amz-bucket-object-lock-enabled), as for the provider.
        lock = {"ObjectLockEnabledForBucket": True} if props.get("objectLockEnabled") else {}
        s3.create_bucket(Bucket=name, **location, **lock)
        s3.put_bucket_tagging(Bucket=name, Tagging={"TagSet": tag_list(props.get("tags"))})
        self._record(resource, name, arn=f"arn:aws:s3:::{name}", name=name)

    def _bucket_setting(self, resource: Resource, props: dict[str, Any]) -> None:
        s3, bucket, kind = self.client("s3"), props["bucket"], resource.type.split(":")[-1]
        if kind == "BucketOwnershipControls":
            s3.put_bucket_ownership_controls(Bucket=bucket, OwnershipControls={"Rules": [to_api(props["rule"])]})
        elif kind == "BucketPublicAccessBlock":
            s3.put_public_access_block(
                Bucket=bucket,
                PublicAccessBlockConfiguration=to_api(
                    {
                        k: props[k]
                        for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
                    },
                    {"blockPublicAcls": "BlockPublicAcls"},
                ),
            )
        elif kind == "BucketVersioning":
            s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration=to_api(props["versioningConfiguration"]))
        elif kind == "BucketServerSideEncryptionConfiguration":
            s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration={"Rules": to_api(props["rules"])})
        elif kind == "BucketPolicy":
            s3.put_bucket_policy(Bucket=bucket, Policy=props["policy"])
        elif kind == "BucketObjectLockConfiguration":
            retention = props["rule"]["defaultRetention"]
            s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={
                "ObjectLockEnabled": props["objectLockEnabled"],
                "Rule": {"DefaultRetention": {"Mode": retention["mode"], "Days": retention["days"]}},
            })
        elif kind == "BucketLifecycleConfiguration":
            s3.put_bucket_lifecycle_configuration(
                Bucket=bucket, LifecycleConfiguration={"Rules": to_api(props["rules"])}
            )
        self._record(resource, bucket)

    # -- load balancing ------------------------------------------------------------------------

    def _load_balancer(self, resource: Resource, props: dict[str, Any]) -> None:
        elb = self.client("elbv2")
        lb = elb.create_load_balancer(
            Name=autoname(resource.name, limit=32),
            Subnets=props["subnets"],
            SecurityGroups=props.get("securityGroups", []),
            Scheme="internal" if props.get("internal") else "internet-facing",
            Type=props.get("loadBalancerType", "application"),
            Tags=tag_list(props.get("tags")),
        )["LoadBalancers"][0]
        attributes = []
        if "dropInvalidHeaderFields" in props:
            attributes.append(
                {
                    "Key": "routing.http.drop_invalid_header_fields.enabled",
                    "Value": str(props["dropInvalidHeaderFields"]).lower(),
                }
            )
        if "idleTimeout" in props:
            attributes.append({"Key": "idle_timeout.timeout_seconds", "Value": str(props["idleTimeout"])})
        if attributes:
            elb.modify_load_balancer_attributes(LoadBalancerArn=lb["LoadBalancerArn"], Attributes=attributes)
        self._record(resource, lb["LoadBalancerArn"], arn=lb["LoadBalancerArn"], name=lb["LoadBalancerName"])

    def _web_acl(self, resource: Resource, props: dict[str, Any]) -> None:
        waf = self.client("wafv2")
        shape = waf.meta.service_model.operation_model("CreateWebACL").input_shape
        acl = waf.create_web_acl(
            Name=autoname(resource.name, limit=128),
            Scope=props["scope"],
            DefaultAction=to_api_shape(props["defaultAction"], shape.members["DefaultAction"]),
            Rules=to_api_shape(props.get("rules") or [], shape.members["Rules"]),
            VisibilityConfig=to_api_shape(props["visibilityConfig"], shape.members["VisibilityConfig"]),
            Tags=tag_list(props.get("tags")),
        )["Summary"]
        self._record(resource, acl["Id"], arn=acl["ARN"], name=acl["Name"])

    def _web_acl_association(self, resource: Resource, props: dict[str, Any]) -> None:
        self.client("wafv2").associate_web_acl(WebACLArn=props["webAclArn"], ResourceArn=props["resourceArn"])

    def _target_group(self, resource: Resource, props: dict[str, Any]) -> None:
        elb = self.client("elbv2")
        health = props.get("healthCheck") or {}
        tg = elb.create_target_group(
            Name=autoname(resource.name, limit=32),
            Protocol=props["protocol"],
            Port=props["port"],
            VpcId=props["vpcId"],
            TargetType=props.get("targetType", "instance"),
            HealthCheckEnabled=health.get("enabled", True),
            HealthCheckPath=health.get("path", "/"),
            HealthCheckPort=str(health.get("port", "traffic-port")),
            HealthCheckProtocol=health.get("protocol", "HTTP"),
            HealthCheckIntervalSeconds=health.get("interval", 30),
            HealthCheckTimeoutSeconds=health.get("timeout", 5),
            HealthyThresholdCount=health.get("healthyThreshold", 3),
            UnhealthyThresholdCount=health.get("unhealthyThreshold", 3),
            Matcher={"HttpCode": health.get("matcher", "200")},
            Tags=tag_list(props.get("tags")),
        )["TargetGroups"][0]
        if "deregistrationDelay" in props:
            elb.modify_target_group_attributes(
                TargetGroupArn=tg["TargetGroupArn"],
                Attributes=[
                    {"Key": "deregistration_delay.timeout_seconds", "Value": str(props["deregistrationDelay"])}
                ],
            )
        self._record(resource, tg["TargetGroupArn"], arn=tg["TargetGroupArn"], name=tg["TargetGroupName"])

    def _listener(self, resource: Resource, props: dict[str, Any]) -> None:
        certificate = props.get("certificateArn")
        if certificate:
            file_acm_certificate(certificate, self.region, self.client("acm"))
        listener = self.client("elbv2").create_listener(
            **{
                k: v
                for k, v in {
                    "LoadBalancerArn": props["loadBalancerArn"],
                    "Protocol": props["protocol"],
                    "Port": props["port"],
                    "SslPolicy": props.get("sslPolicy"),
                    "Certificates": [{"CertificateArn": certificate}] if certificate else None,
                    "DefaultActions": to_api(props["defaultActions"], _ACTION_RENAMES),
                    "Tags": tag_list(props.get("tags")),
                }.items()
                if v is not None
            }
        )["Listeners"][0]
        self._record(resource, listener["ListenerArn"], arn=listener["ListenerArn"])

    def _listener_rule(self, resource: Resource, props: dict[str, Any]) -> None:
        conditions = []
        for condition in props.get("conditions") or []:
            [(key, config)] = condition.items()
            field, member = _CONDITIONS[key]
            conditions.append({"Field": field, member: {"Values": config["values"]}})
        rule = self.client("elbv2").create_rule(
            ListenerArn=props["listenerArn"],
            Priority=props["priority"],
            Conditions=conditions,
            Actions=to_api(props["actions"], _ACTION_RENAMES),
            Tags=tag_list(props.get("tags")),
        )["Rules"][0]
        self._record(resource, rule["RuleArn"], arn=rule["RuleArn"])

    # -- secrets -------------------------------------------------------------------------------

    def _secret(self, resource: Resource, props: dict[str, Any]) -> None:
        sm = self.client("secretsmanager")
        name = props.get("name") or (props.get("namePrefix", "") + secrets.token_hex(4))
        secret = sm.create_secret(
            Name=name,
            Description=props.get("description", ""),
            KmsKeyId=props["kmsKeyId"],
            Tags=tag_list(props.get("tags")),
        )
        if self.secret_values:
            # The operator's step after `pulumi up` (README): put the value. Verify never reads it.
            sm.put_secret_value(SecretId=secret["ARN"], SecretString=SECRET_PLACEHOLDER_VALUE)
        self._record(resource, secret["ARN"], arn=secret["ARN"], name=name)

    def _secret_policy(self, resource: Resource, props: dict[str, Any]) -> None:
        self.client("secretsmanager").put_resource_policy(
            SecretId=props["secretArn"],
            ResourcePolicy=props["policy"],
            BlockPublicPolicy=bool(props.get("blockPublicPolicy", True)),
        )
        self._record(resource, props["secretArn"])

    def _secret_version(self, resource: Resource, props: dict[str, Any]) -> None:
        self.client("secretsmanager").put_secret_value(
            SecretId=props["secretId"], SecretString=SECRET_PLACEHOLDER_VALUE
        )
        self._record(resource, props["secretId"])

    def rotation_function(self, arn: str) -> None:
        """The team's rotation function, which exists before the stack (the stack only lets Secrets Manager
        invoke it): a function with a role Lambda may assume, as moto requires (no Docker: never invoked)."""
        lam = self.client("lambda")
        name = arn.rsplit(":", 1)[-1]
        try:
            lam.get_function(FunctionName=arn)
            return
        except lam.exceptions.ResourceNotFoundException:
            pass
        trust = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
        role = self.client("iam").create_role(RoleName=f"{name}-role", AssumeRolePolicyDocument=json.dumps(trust))
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as bundle:
            bundle.writestr("rotate.py", "def handler(event, context):\n    return None\n")
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role["Role"]["Arn"],
                            Handler="rotate.handler", Code={"ZipFile": archive.getvalue()})

    def _lambda_permission(self, resource: Resource, props: dict[str, Any]) -> None:
        """AddPermission on the (pre-existing) function, with the provider's autonamed statement id."""
        self.rotation_function(props["function"])
        statement = {"StatementId": autoname(resource.name), "Action": props["action"],
                     "Principal": props["principal"]}
        if props.get("sourceArn"):
            statement["SourceArn"] = props["sourceArn"]
        self.client("lambda").add_permission(FunctionName=props["function"], **statement)
        self._record(resource, f"{props['function']}#{statement['StatementId']}")

    def _secret_rotation(self, resource: Resource, props: dict[str, Any]) -> None:
        """RotateSecret, as the provider calls it: Secrets Manager stores the rotation settings and invokes
        the function (moto's Lambda without Docker answers the invocation without running it, so the new
        version stays AWSPENDING: what a rotation function that has not finished leaves)."""
        self.rotation_function(props["rotationLambdaArn"])
        secrets_manager = self.client("secretsmanager")
        secrets_manager.rotate_secret(
            SecretId=props["secretId"], RotationLambdaARN=props["rotationLambdaArn"],
            RotationRules={"AutomaticallyAfterDays": props["rotationRules"]["automaticallyAfterDays"]},
        )
        self._record(resource, props["secretId"])

    def _trail(self, resource: Resource, props: dict[str, Any]) -> None:
        """What the provider does for a trail: CreateTrail, PutEventSelectors (advanced), StartLogging."""
        cloudtrail = self.client("cloudtrail")
        trail = cloudtrail.create_trail(
            Name=props["name"],
            S3BucketName=props["s3BucketName"],
            IsMultiRegionTrail=props["isMultiRegionTrail"],
            IncludeGlobalServiceEvents=props["includeGlobalServiceEvents"],
            EnableLogFileValidation=props["enableLogFileValidation"],
            KmsKeyId=props["kmsKeyId"],
            TagsList=tag_list(props.get("tags")),
        )
        operators = {"field": "Field", "equals": "Equals", "startsWiths": "StartsWith", "endsWiths": "EndsWith",
                     "notEquals": "NotEquals", "notStartsWiths": "NotStartsWith", "notEndsWiths": "NotEndsWith"}
        cloudtrail.put_event_selectors(TrailName=trail["TrailARN"], AdvancedEventSelectors=[
            {"Name": selector["name"],
             "FieldSelectors": [{operators[k]: v for k, v in field.items()} for field in selector["fieldSelectors"]]}
            for selector in props["advancedEventSelectors"]
        ])
        if props.get("enableLogging"):
            cloudtrail.start_logging(Name=trail["TrailARN"])
        self._record(resource, trail["TrailARN"], arn=trail["TrailARN"], name=props["name"])

    # -- what the Kubernetes layer and the trainer add later -----------------------------------

    def register_targets(self, count: int = 2) -> None:
        """What the AWS Load Balancer Controller does through the TargetGroupBinding."""
        elb = self.client("elbv2")
        for resource in self.declared.of_type("aws:lb/targetGroup:TargetGroup"):
            port = resource.props.get("port", 8000)
            elb.register_targets(
                TargetGroupArn=self.live_id[resource.name],
                Targets=[{"Id": f"10.40.0.{10 + i}", "Port": port} for i in range(count)],
            )

    def target_group_resource(self, service: str, backend: str) -> Resource:
        """The declared target group of a service's backend (by its tags; the one group of a stack
        declared before target groups carried them)."""
        groups = self.declared.of_type("aws:lb/targetGroup:TargetGroup")
        for resource in groups:
            tags = resource.tags()
            if (tags.get("accelplane:service"), tags.get("accelplane:backend")) == (service, backend):
                return resource
        if len(groups) == 1 and "accelplane:backend" not in groups[0].tags():
            return groups[0]
        raise KeyError((service, backend))

    def target_group(self, service: str, backend: str) -> str:
        """The live ARN of a service's backend's target group."""
        return self.live_id[self.target_group_resource(service, backend).name]

    def https_listener(self) -> str:
        """The live ARN of the endpoint's HTTPS listener (the one whose default action routes "/")."""
        endpoint = self.declared.platform.inference_endpoint
        port = endpoint.listener_port if endpoint else 443
        [listener] = [r for r in self.declared.of_type("aws:lb/listener:Listener") if r.props.get("port") == port]
        return self.live_id[listener.name]

    def bucket(self, role: str) -> str:
        for resource in self.declared.of_type("aws:s3/bucket:Bucket"):
            if resource.tags().get("accelplane.io/bucket-role") == role:
                return self.live_id[resource.name]
        raise KeyError(role)

    def write_checkpoint(self, prefix: str, step: int, files: dict[str, bytes], *, checksums: bool = False) -> str:
        """A checkpoint as a trainer writes it: the files, then the manifest of sizes and sha256."""
        s3, bucket = self.client("s3"), self.bucket("checkpoints")
        directory = f"{prefix}step-{step:08d}/"
        for path, body in files.items():
            extra = {"ChecksumAlgorithm": "SHA256"} if checksums else {}
            s3.put_object(Bucket=bucket, Key=directory + path, Body=body, **extra)
        manifest = {
            "step": step,
            "files": [{"path": p, "size": len(b), "sha256": hashlib.sha256(b).hexdigest()} for p, b in files.items()],
        }
        s3.put_object(Bucket=bucket, Key=directory + "manifest.json", Body=json.dumps(manifest).encode())
        return directory

    def secret_arn(self, name: str) -> str:
        for resource in self.declared.of_type("aws:secretsmanager/secret:Secret"):
            if resource.name.endswith(f"-{name}"):
                return self.live_id[resource.name]
        raise KeyError(name)

    def group_id(self, role: str) -> str:
        return self.live_id[f"{self.declared.platform.name}-sg-{role}"]

    def key_id(self, role: str) -> str:
        return self.live_id[f"{self.declared.platform.name}-{role}-key"]


def access_entry(cluster: str, principal: str, kind: str, created: dt.datetime) -> dict[str, Any]:
    """An access entry as `eks:DescribeAccessEntry` answers it."""
    name = principal.rsplit("/", 1)[-1]
    return {
        "clusterName": cluster,
        "principalArn": principal,
        "kubernetesGroups": ["system:nodes"] if kind == "EC2_LINUX" else [],
        "accessEntryArn": f"arn:aws:eks:us-east-1:{ACCOUNT}:access-entry/{cluster}/role/{ACCOUNT}/{name}/0",
        "createdAt": created,
        "modifiedAt": created,
        "tags": {},
        "username": "system:node:{{EC2PrivateDNSName}}" if kind == "EC2_LINUX" else principal,
        "type": kind,
    }


def fill_eks_gaps() -> Callable[[], None]:
    """Answer `ListAccessEntries`, `DescribeAccessEntry`, `ListAssociatedAccessPolicies` and `ListAddons`
    in moto (in process and in a `ThreadedMotoServer` started after this call) from what `MotoPlatform`
    recorded, and drop the fake remote-access group of node groups without remote access; returns the
    undo."""
    from urllib.parse import unquote

    from moto.core.responses import ActionResult
    from moto.eks import urls
    from moto.eks.models import Nodegroup
    from moto.eks.responses import EKSResponse

    def cluster_of(response: Any) -> Any:
        name = unquote(response.path.split("/clusters/", 1)[1].split("/", 1)[0])
        return response.eks_backend.clusters[name]

    def list_access_entries(self: Any) -> ActionResult:
        entries = getattr(cluster_of(self), "accelplane_access_entries", {})
        return ActionResult({"accessEntries": sorted(entries)})

    def principal_of(response: Any) -> str:
        return unquote(response.path.split("/access-entries/", 1)[1].split("/access-policies", 1)[0])

    def describe_access_entry(self: Any) -> ActionResult:
        entries = getattr(cluster_of(self), "accelplane_access_entries", {})
        return ActionResult({"accessEntry": entries[principal_of(self)]})

    def list_associated_access_policies(self: Any) -> ActionResult:
        cluster, principal = cluster_of(self), principal_of(self)
        policies = getattr(cluster, "accelplane_access_policies", {}).get(principal, [])
        return ActionResult(
            {"clusterName": cluster.name, "principalArn": principal, "associatedAccessPolicies": policies}
        )

    def list_addons(self: Any) -> ActionResult:
        return ActionResult({"addons": list(getattr(cluster_of(self), "accelplane_addons", []))})

    added = {
        "{0}/clusters/(?P<name>[^/]+)/access-entries$": urls.response.dispatch,
        "{0}/clusters/(?P<name>[^/]+)/access-entries/(?P<principalArn>.+)$": urls.response.dispatch,
        "{0}/clusters/(?P<name>[^/]+)/addons$": urls.response.dispatch,
    }
    original_init = Nodegroup.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        if not kwargs.get("remote_access"):
            self.resources.pop("remoteAccessSecurityGroup", None)

    Nodegroup.__init__ = init  # type: ignore[method-assign]
    urls.url_paths.update(added)
    methods = {
        "list_access_entries": list_access_entries,
        "describe_access_entry": describe_access_entry,
        "list_associated_access_policies": list_associated_access_policies,
        "list_addons": list_addons,
    }
    for name, method in methods.items():
        setattr(EKSResponse, name, method)

    def undo() -> None:
        Nodegroup.__init__ = original_init  # type: ignore[method-assign]
        for path in added:
            urls.url_paths.pop(path, None)
        for name in methods:
            delattr(EKSResponse, name)

    return undo


def _moto_eks_cluster(name: str, region: str) -> Any:
    from moto.eks.models import eks_backends

    return eks_backends[ACCOUNT][region].clusters[name]


@functools.cache
def _aws_managed_policies() -> dict[str, Any]:
    from moto.iam.aws_managed_policies import aws_managed_policies_data

    return json.loads(aws_managed_policies_data)


def load_aws_managed_policy(arn: str) -> None:
    """Add one AWS managed policy to moto's IAM, from moto's own copy of AWS's documents."""
    from moto.iam.models import AWSManagedPolicy, iam_backends

    backend = iam_backends[ACCOUNT]["aws"]
    if arn in backend.managed_policies:
        return
    name = re.sub(r"^arn:aws:iam::aws:policy/(.*/)?", "", arn)
    data = _aws_managed_policies()[name]
    policy = AWSManagedPolicy.from_data(name, ACCOUNT, "us-east-1", data)
    backend.managed_policies[policy.arn] = policy


def file_acm_certificate(arn: str, region: str, acm: Any) -> None:
    """Import a test certificate and file it in moto's ACM under the declared ARN."""
    from moto.acm.models import acm_backends

    backend = acm_backends[ACCOUNT][region]
    if arn in backend._certificates:
        return
    certificate, key = self_signed_certificate()
    imported = acm.import_certificate(Certificate=certificate, PrivateKey=key)["CertificateArn"]
    bundle = backend._certificates.pop(imported)
    bundle.arn = arn
    backend._certificates[arn] = bundle


def _insecure_transport_only(statement: Any) -> bool:
    condition = statement.get("Condition") if isinstance(statement, dict) else None
    if not isinstance(condition, dict) or list(condition) != ["Bool"]:
        return False
    value = condition["Bool"].get("aws:SecureTransport") if isinstance(condition["Bool"], dict) else None
    return len(condition["Bool"]) == 1 and value in ("false", ["false"], False)


def honour_secure_transport() -> Callable[[], None]:
    """Patch moto's bucket-policy check to skip TLS-only denies; returns the undo."""
    from moto.iam.access_control import IAMPolicy, PermissionResult
    from moto.s3.models import FakeBucket

    original = FakeBucket.get_permission

    def get_permission(self: Any, action: str, resource: str) -> Any:
        if self.policy is None:
            return PermissionResult.NEUTRAL
        document = json.loads(self.policy.decode() if isinstance(self.policy, bytes) else self.policy)
        statements = document.get("Statement", [])
        statements = statements if isinstance(statements, list) else [statements]
        kept = [s for s in statements if not _insecure_transport_only(s)]
        if not kept:
            return PermissionResult.NEUTRAL
        return IAMPolicy(json.dumps({**document, "Statement": kept})).is_action_permitted(action, resource)

    FakeBucket.get_permission = get_permission  # type: ignore[method-assign]

    def undo() -> None:
        FakeBucket.get_permission = original  # type: ignore[method-assign]

    return undo
