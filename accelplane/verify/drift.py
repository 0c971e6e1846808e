"""Drift: every declared resource exists live with the declared settings, and nothing extra.

For each declared resource of a verified type, its matched live resource (`live_view`) is compared
property by property after both sides are made canonical (`canonical`): references as symbols,
documents normalised. What is compared is what the declaration sets, minus what cannot or must
not be compared:

- `ignore`: inputs that are not settings of the live resource (naming: `namePrefix`,
  `bucketPrefix`; provider behaviour: `forceDestroy`, `updateDefaultVersion`; create-only:
  `recoveryWindowInDays`, `deletionWindowInDays`), and what the program itself leaves to others:
  a node group's `desiredSize` (the autoscaler owns it: `ignore_changes` in `aws/node_pool.py`)
  and the launch template version it pins (checked by `live.launch-template-version` instead);
- `read`: the inputs this command reads live for the type; a declared input outside it is
  reported once per resource as not verified (`drift.unverifiable`, a skip, never a pass);
- `optional`: inputs some API versions (and emulators) leave out of a response; when absent
  they are not verified rather than drifted;
- `exact`: maps where an extra live key is drift too (node labels);
- `defaults`: the desired state of what the program leaves unset. The offline graph holds every
  input the program sets (whatever the stack file leaves at its default, the program still sends),
  so that is compared as it is; an input the program does not send at all is AWS's default, and a
  hand-made change to it (a role's session lengthened to 12 hours, an extra control-plane security
  group, an SSH key put in a launch template, deletion protection turned on) is drift too. `ABSENT`
  means "no value": any live value is drift.

Forward actions (the listener's default action, listener rules' actions) are compared here without
their target groups; `routing` judges those, one result per forward naming the service, its
backends' declared and live weights and the rollout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelplane.verify.canonical import Symbols, canonical, differences
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.live_view import LiveView
from accelplane.verify.model import CheckId, CheckResult, Status, Subject
from accelplane.verify.routing import (
    ACTIONS_KEY,
    forward_results,
    rule_summary,
    without_targets,
    without_weights_tag,
)

_NAMING = frozenset({"name", "namePrefix", "bucketPrefix", "nodeGroupNamePrefix"})


class _Absent:
    def __repr__(self) -> str:
        return "(not set)"


ABSENT: Any = _Absent()  # a default that is no value at all


@dataclass(frozen=True)
class Spec:
    read: frozenset[str]
    ignore: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    exact: frozenset[str] = frozenset()
    defaults: Mapping[str, Any] = field(default_factory=dict)  # dotted input path -> AWS's default


def _spec(
    read: Iterable[str],
    ignore: Iterable[str] = (),
    optional: Iterable[str] = (),
    exact: Iterable[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> Spec:
    return Spec(frozenset(read), frozenset(ignore) | _NAMING, frozenset(optional), frozenset(exact), defaults or {})


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
        ("loadBalancerArn", "port", "protocol", "sslPolicy", "certificateArn", "alpnPolicy", "defaultActions", "tags")
    ),
    "aws:lb/listenerRule:ListenerRule": _spec(("listenerArn", "priority", "conditions", "actions", "tags")),
    "aws:secretsmanager/secret:Secret": _spec(
        ("description", "kmsKeyId", "tags"), ignore=("recoveryWindowInDays", "forceOverwriteReplicaSecret")
    ),
    "aws:secretsmanager/secretPolicy:SecretPolicy": _spec(("secretArn", "policy"), ignore=("blockPublicPolicy",)),
    # A secret version is checked for existence only: its value is never read.
    "aws:secretsmanager/secretVersion:SecretVersion": _spec(
        ("secretId",),
        ignore=("secretString", "secretBinary", "secretStringWo", "secretStringWoVersion", "versionStages"),
    ),
    "aws:cloudwatch/logGroup:LogGroup": _spec(
        ("retentionInDays", "kmsKeyId", "tags"), defaults={"retentionInDays": ABSENT, "kmsKeyId": ABSENT}
    ),
}


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rule_summary(type_token: str, props: dict[str, Any]) -> str:
    """`ingress tcp ports 22-22 from 0.0.0.0/0`, with groups by their declared names."""
    direction = "egress" if "Egress" in type_token else "ingress"
    protocol = props.get("ipProtocol")
    what = "all protocols" if protocol == "-1" else protocol
    ports = "all ports" if protocol == "-1" else f"ports {props.get('fromPort')}-{props.get('toPort')}"
    peers = ("cidrIpv4", "cidrIpv6", "referencedSecurityGroupId", "prefixListId")
    peer = next((props[k] for k in peers if props.get(k)), "?")
    return f"{direction} {what} {ports} {'to' if direction == 'egress' else 'from'} {peer}"


def _at(props: Mapping[str, Any], path: str) -> Any:
    value: Any = props
    for part in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(part)
    return value


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def _default_drift(
    declared: Mapping[str, Any],
    live: Mapping[str, Any],
    spec: Spec,
    unread: set[str],
    symbols: Symbols,
    where: Subject,
) -> list[CheckResult]:
    """Inputs the program leaves unset whose live value is no longer AWS's default."""
    out: list[CheckResult] = []
    for path, default in sorted(spec.defaults.items()):
        root = path.split(".", 1)[0]
        if root not in spec.read or root in unread or _at(declared, path) is not None:
            continue  # not read, or the program sets it (compared as declared)
        value = _at(live, path)
        if default is ABSENT:
            if _empty(value):
                continue
        elif value is None or not differences(canonical(default), canonical(value, symbols), path=path):
            continue  # not reported by the API, or still the default
        actual = canonical(value, symbols)
        out.append(
            CheckResult(
                CheckId.drift_changed,
                Status.failed,
                f"{path}: not set by the program (AWS default {_short(default)}), live {_short(actual)}",
                path=path,
                expected=None if default is ABSENT else default,
                actual=actual,
                **where,
            )
        )
    return out


def stack_missing(
    declared: DeclaredPlatform, view: LiveView, *, read_errors: int, account: str, region: str
) -> CheckResult | None:
    """One failed result when nothing of the stack is deployed in this account and region, else None.

    A wrong profile, account or region, or a stack before its first `pulumi up`, would otherwise be
    reported as every declared resource missing. Only said when the reads succeeded (access denied
    could hide what is there) and nothing regional matched or carries the platform's identity; IAM
    is global, so roles of the stack deployed in another region do not count as "deployed here".
    """
    if read_errors or view.unreadable or view.unexpected:
        return None
    regional = [r for r in declared.resources if r.type in SPECS and not r.type.startswith("aws:iam/")]
    if not regional or any(not live.type.startswith("aws:iam/") for live in view.matched.values()):
        return None
    message = (
        f"stack {declared.stack} not found in account {account} region {region}: nothing of it is deployed there "
        "(is this the right account/region? has `pulumi up` run?)"
    )
    global_found = sum(1 for live in view.matched.values() if live.type.startswith("aws:iam/"))
    if global_found:
        message += f"; {global_found} of its IAM resources exist (IAM is global): is it deployed in another region?"
    return CheckResult(
        CheckId.stack_missing,
        Status.failed,
        message,
        type="pulumi:pulumi:Stack",
        name=declared.stack,
        path="resources",
        expected=len(regional),
        actual=0,
    )


def drift_results(declared: DeclaredPlatform, view: LiveView) -> list[CheckResult]:
    symbols = view.symbols
    results: list[CheckResult] = []
    for resource in declared.resources:
        spec = SPECS.get(resource.type)
        if spec is None:
            continue
        where: Subject = {"type": resource.type, "name": resource.name, "urn": resource.urn}
        if resource.urn in view.unreadable:
            results.append(
                CheckResult(
                    CheckId.read_error, Status.failed, f"not verified: {view.unreadable[resource.urn]}", **where
                )
            )
            continue
        live = view.matched.get(resource.urn)
        if live is None:
            reason = view.missing_reason.get(resource.urn)
            results.append(
                CheckResult(
                    CheckId.drift_missing,
                    Status.failed,
                    f"declared {resource.type.rsplit(':', 1)[-1]} {resource.name} does not exist live"
                    + (f": {reason}" if reason else ""),
                    **where,
                )
            )
            continue
        changed: list[CheckResult] = []
        unverifiable: list[str] = []
        unread = view.unreadable_props.get(resource.urn, set())
        for key, value in resource.props.items():
            if key in spec.ignore or value is None:
                continue
            if key not in spec.read or key in unread or (key in spec.optional and live.props.get(key) is None):
                unverifiable.append(key)
                continue
            live_value = live.props.get(key)
            if ACTIONS_KEY.get(resource.type) == key:
                value, live_value = without_targets(value), without_targets(live_value)
            elif key == "tags" and resource.type in ACTIONS_KEY:
                value, live_value = without_weights_tag(value), without_weights_tag(live_value)
            for difference in differences(
                canonical(value, symbols),
                canonical(live_value, symbols),
                path=key,
                exact_paths=spec.exact,
                ignore_paths=spec.ignore,
            ):
                changed.append(
                    CheckResult(
                        CheckId.drift_changed,
                        Status.failed,
                        f"{difference.path}: declared {_short(difference.expected)}, live {_short(difference.actual)}",
                        path=difference.path,
                        expected=difference.expected,
                        actual=difference.actual,
                        **where,
                    )
                )
        changed += _default_drift(resource.props, live.props, spec, unread, symbols, where)
        if ACTIONS_KEY.get(resource.type) not in (None, *unread):
            changed += forward_results(declared, view, resource, live, where)
        results.extend(changed)
        if unverifiable:
            results.append(
                CheckResult(
                    CheckId.drift_unverifiable,
                    Status.skipped,
                    f"not verified (not reported by the API or not read): {', '.join(sorted(unverifiable))}",
                    **where,
                )
            )
        if not changed:
            results.append(
                CheckResult(
                    CheckId.drift_matched, Status.passed, f"matches the declaration (live id {live.id})", **where
                )
            )
    for unexpected in view.unexpected:
        live = unexpected.resource
        props = canonical(dict(live.props), symbols)
        is_rule = live.type in (
            "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
            "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
        )
        if is_rule:
            detail = _rule_summary(live.type, props)
        elif live.type == "aws:lb/listenerRule:ListenerRule":
            detail = rule_summary(props)
        else:
            detail = live.id or ""
        results.append(
            CheckResult(
                CheckId.drift_unexpected,
                Status.failed,
                f"{unexpected.reason}: {detail}",
                type=live.type,
                name=live.name,
                urn=live.urn,
                actual=props,
            )
        )
    for type_token, count in sorted(view.unverified.items()):
        results.append(
            CheckResult(
                CheckId.coverage,
                Status.skipped,
                f"{count} declared {type_token} not verified by this command"
                + (" (Kubernetes objects need cluster access)" if type_token.startswith("kubernetes:") else ""),
                type=type_token,
            )
        )
    return results
