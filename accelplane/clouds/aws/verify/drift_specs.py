"""What `accelplane verify`'s drift engine compares on AWS, per declared type (`verify.drift.Spec`).

For each verified type: the inputs read live (`read`), those not compared (`ignore`: naming inputs,
provider behaviour such as `forceDestroy`, create-only inputs, and what the program leaves to others:
a node group's `desiredSize`, owned by the autoscaler through `ignore_changes` in
`components/node_pool.py`, and the launch template version it pins, checked by
`live.launch-template-version` instead), inputs some API versions leave out (`optional`), maps
where an extra live key is drift (`exact`: node labels), and AWS's default for inputs the program
leaves unset (`defaults`; `ABSENT`: no value at all). A hand-made change to a default (a role's
session lengthened to 12 hours, an extra control-plane security group, an SSH key in a launch
template, deletion protection turned on) is drift too.

Forward actions (the listener's default action, listener rules' actions) are compared without their
target groups; `routing` judges those, one result per forward naming the service, its backends'
declared and live weights and the rollout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.clouds.aws.verify.routing import (
    ACTIONS_KEY,
    forward_results,
    rule_summary,
    without_targets,
    without_weights_tag,
)
from accelplane.clouds.aws.verify.view import AwsLiveView
from accelplane.rules.view import Resource
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.drift import ABSENT, DriftMapping, Spec, spec
from accelplane.verify.live import LiveView
from accelplane.verify.results import CheckResult, Subject

_spec = spec
_RULE = (
    "securityGroupId",
    "ipProtocol",
    "fromPort",
    "toPort",
    "cidrIpv4",
    "cidrIpv6",
    "referencedSecurityGroupId",
    "prefixListId",
    "description",
    "tags",
)
_BUCKET_SETTING = ("bucket",)

SPECS: dict[str, Spec] = {
    # enableDnsHostnames/Support: one DescribeVpcAttribute call per attribute (DescribeVpcs omits them).
    "aws:ec2/vpc:Vpc": _spec(("cidrBlock", "enableDnsSupport", "enableDnsHostnames", "tags")),
    "aws:ec2/subnet:Subnet": _spec(
        ("cidrBlock", "availabilityZone", "mapPublicIpOnLaunch", "vpcId", "tags"),
        defaults={"mapPublicIpOnLaunch": False},
    ),
    "aws:ec2/securityGroup:SecurityGroup": _spec(("description", "vpcId", "tags"), ignore=("revokeRulesOnDelete",)),
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": _spec(("vpcId", "tags")),
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": _spec(_RULE, optional=("description",)),
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": _spec(_RULE, optional=("description",)),
    "aws:ec2/launchTemplate:LaunchTemplate": _spec(
        (
            "metadataOptions",
            "blockDeviceMappings",
            "networkInterfaces",
            "placement",
            "capacityReservationSpecification",
            "tagSpecifications",
            "tags",
            "imageId",
            "instanceType",
            "userData",
            "iamInstanceProfile",
            "vpcSecurityGroupIds",
            "keyName",
            "ebsOptimized",
            "monitoring",
        ),
        ignore=("description", "updateDefaultVersion", "defaultVersion"),
        # EKS picks the AMI and its bootstrap for the AMI type unless the template names them; no SSH
        # key, no instance profile of its own (the node group's role), no groups outside its interfaces.
        defaults={
            "imageId": ABSENT,
            "userData": ABSENT,
            "keyName": ABSENT,
            "iamInstanceProfile": ABSENT,
            "instanceType": ABSENT,
            "vpcSecurityGroupIds": [],
        },
    ),
    "aws:ec2/placementGroup:PlacementGroup": _spec(("strategy", "tags")),
    "aws:eks/cluster:Cluster": _spec(
        ("version", "roleArn", "vpcConfig", "encryptionConfig", "enabledClusterLogTypes", "accessConfig", "tags"),
        ignore=("accessConfig.bootstrapClusterCreatorAdminPermissions", "bootstrapSelfManagedAddons"),
        optional=("accessConfig",),
        defaults={
            "vpcConfig.securityGroupIds": [],  # no control-plane group besides the one EKS creates
            "vpcConfig.endpointPrivateAccess": False,
            "vpcConfig.endpointPublicAccess": True,
            "enabledClusterLogTypes": [],
            "encryptionConfig": ABSENT,
        },
    ),
    "aws:eks/nodeGroup:NodeGroup": _spec(
        (
            "clusterName",
            "nodeGroupName",
            "nodeRoleArn",
            "subnetIds",
            "instanceTypes",
            "amiType",
            "releaseVersion",
            "version",
            "capacityType",
            "scalingConfig",
            "updateConfig",
            "labels",
            "taints",
            "launchTemplate",
            "diskSize",
            "remoteAccess",
            "tags",
        ),
        ignore=("scalingConfig.desiredSize", "launchTemplate.version", "forceUpdateVersion"),
        optional=("updateConfig",),
        exact=("labels",),
        defaults={"remoteAccess": ABSENT, "taints": [], "labels": {}},
    ),
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": _spec(
        ("url", "clientIdLists", "tags"), ignore=("thumbprintLists",)
    ),
    "aws:iam/role:Role": _spec(
        ("assumeRolePolicy", "maxSessionDuration", "description", "path", "permissionsBoundary", "tags"),
        ignore=("forceDetachPolicies",),
        defaults={"maxSessionDuration": 3600, "path": "/", "permissionsBoundary": ABSENT},
    ),
    "aws:iam/rolePolicy:RolePolicy": _spec(("role", "policy")),
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": _spec(("role", "policyArn")),
    "aws:kms/key:Key": _spec(
        (
            "description",
            "keyUsage",
            "customerMasterKeySpec",
            "enableKeyRotation",
            "rotationPeriodInDays",
            "policy",
            "tags",
        ),
        ignore=("deletionWindowInDays", "bypassPolicyLockoutSafetyCheck", "isEnabled"),
        optional=("rotationPeriodInDays",),
        defaults={
            "keyUsage": "ENCRYPT_DECRYPT",
            "customerMasterKeySpec": "SYMMETRIC_DEFAULT",
            "enableKeyRotation": False,
        },
    ),
    "aws:kms/alias:Alias": _spec(("targetKeyId",)),
    "aws:s3/bucket:Bucket": _spec(("bucket", "tags"), ignore=("forceDestroy", "objectLockEnabled")),
    "aws:s3/bucketVersioning:BucketVersioning": _spec((*_BUCKET_SETTING, "versioningConfiguration")),
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": _spec(
        (*_BUCKET_SETTING, "rules")
    ),
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": _spec(
        (*_BUCKET_SETTING, "blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    ),
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": _spec((*_BUCKET_SETTING, "rule")),
    "aws:s3/bucketPolicy:BucketPolicy": _spec((*_BUCKET_SETTING, "policy")),
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": _spec((*_BUCKET_SETTING, "rules")),
    # The audit bucket's default retention: shortened or switched to GOVERNANCE (which a principal with
    # s3:BypassGovernanceRetention may override) by hand is drift.
    "aws:s3/bucketObjectLockConfiguration:BucketObjectLockConfiguration": _spec(
        (*_BUCKET_SETTING, "objectLockEnabled", "rule"), ignore=("token", "expectedBucketOwner"),
    ),
    "aws:lb/loadBalancer:LoadBalancer": _spec(
        (
            "loadBalancerType",
            "internal",
            "subnets",
            "securityGroups",
            "ipAddressType",
            "dropInvalidHeaderFields",
            "idleTimeout",
            "enableDeletionProtection",
            "tags",
        ),
        defaults={
            "internal": False,
            "ipAddressType": "ipv4",
            "dropInvalidHeaderFields": False,
            "idleTimeout": 60,
            "enableDeletionProtection": False,
        },
    ),
    "aws:lb/targetGroup:TargetGroup": _spec(
        ("port", "protocol", "targetType", "vpcId", "deregistrationDelay", "healthCheck", "tags")
    ),
    "aws:lb/listener:Listener": _spec(
        ("loadBalancerArn", "port", "protocol", "sslPolicy", "certificateArn", "alpnPolicy", "defaultActions", "tags",
         "mutualAuthentication"),
        # Without mutual TLS the listener reports mode "off".
        defaults={"mutualAuthentication.mode": "off"},
    ),
    "aws:lb/listenerRule:ListenerRule": _spec(("listenerArn", "priority", "conditions", "actions", "tags")),
    "aws:secretsmanager/secret:Secret": _spec(
        ("description", "kmsKeyId", "tags"), ignore=("recoveryWindowInDays", "forceOverwriteReplicaSecret")
    ),
    "aws:secretsmanager/secretPolicy:SecretPolicy": _spec(("secretArn", "policy"), ignore=("blockPublicPolicy",)),
    # Rotation as ListSecrets reports it; `rotateImmediately` is what the create call did, not a setting.
    "aws:secretsmanager/secretRotation:SecretRotation": _spec(
        ("secretId", "rotationLambdaArn", "rotationRules"),
        ignore=("rotateImmediately", "rotationEnabled", "externalSecretRotationMetadatas",
                "externalSecretRotationRoleArn", "region"),
    ),
    # The rotation function's resource-policy statement for the secret (its id is autonamed).
    "aws:lambda/permission:Permission": _spec(
        ("action", "function", "principal", "sourceArn", "sourceAccount"),
        ignore=("statementId", "statementIdPrefix"),
        defaults={"sourceAccount": ABSENT},
    ),
    # A secret version is checked for existence only: its value is never read.
    "aws:secretsmanager/secretVersion:SecretVersion": _spec(
        ("secretId",),
        ignore=("secretString", "secretBinary", "secretStringWo", "secretStringWoVersion", "versionStages"),
    ),
    # Whether the trail is logging is judged by `live.trail-logging` (GetTrailStatus: when it stopped,
    # delivery errors), not as an input that changed.
    "aws:cloudtrail/trail:Trail": _spec(
        ("s3BucketName", "s3KeyPrefix", "isMultiRegionTrail", "includeGlobalServiceEvents", "enableLogFileValidation",
         "isOrganizationTrail", "kmsKeyId", "snsTopicName", "cloudWatchLogsGroupArn", "advancedEventSelectors",
         "tags"),
        ignore=("enableLogging",),
        defaults={
            "s3KeyPrefix": ABSENT,
            "isOrganizationTrail": False,
            "snsTopicName": ABSENT,
            "cloudWatchLogsGroupArn": ABSENT,
        },
    ),
    "aws:cloudwatch/logGroup:LogGroup": _spec(
        ("retentionInDays", "kmsKeyId", "tags"), defaults={"retentionInDays": ABSENT, "kmsKeyId": ABSENT}
    ),
}

_RULE_TYPES = (
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
)


def _rule_summary(type_token: str, props: dict[str, Any]) -> str:
    """`ingress tcp ports 22-22 from 0.0.0.0/0`, with groups by their declared names."""
    direction = "egress" if "Egress" in type_token else "ingress"
    protocol = props.get("ipProtocol")
    what = "all protocols" if protocol == "-1" else protocol
    ports = "all ports" if protocol == "-1" else f"ports {props.get('fromPort')}-{props.get('toPort')}"
    peers = ("cidrIpv4", "cidrIpv6", "referencedSecurityGroupId", "prefixListId")
    peer = next((props[k] for k in peers if props.get(k)), "?")
    return f"{direction} {what} {ports} {'to' if direction == 'egress' else 'from'} {peer}"


class AwsDrift(DriftMapping):
    cloud_label = "AWS"
    global_kind = "IAM"
    specs = SPECS

    def comparable(self, type_token: str, key: str, value: Any) -> Any:
        if ACTIONS_KEY.get(type_token) == key:
            return without_targets(value)
        if key == "tags" and type_token in ACTIONS_KEY:
            return without_weights_tag(value)
        return value

    def extra_results(
        self, declared: DeclaredPlatform, view: LiveView, resource: Resource, live: Resource, unread: set[str],
        where: Subject,
    ) -> list[CheckResult]:
        key = ACTIONS_KEY.get(resource.type)
        if key is None or key in unread:
            return []
        assert isinstance(view, AwsLiveView)
        return forward_results(declared, view, resource, live, where)

    def describe_unexpected(self, live: Resource, props: Mapping[str, Any]) -> str:
        if live.type in _RULE_TYPES:
            return _rule_summary(live.type, dict(props))
        if live.type == "aws:lb/listenerRule:ListenerRule":
            return rule_summary(props)
        return live.id or ""

    def is_global(self, type_token: str) -> bool:
        return type_token.startswith("aws:iam/")  # IAM is global: found from any region


DRIFT = AwsDrift()
