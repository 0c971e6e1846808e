"""The live platform as the rules and the drift check see it: `Resource`s in the declared shape.

Each live resource is matched to the declared resource it implements and given that resource's
type token, logical name and URN, with props in the wire format (camelCase keys, as `pulumi up`
sends them) built from what AWS returned. So the same least-privilege and hygiene rules that
`accelplane check` runs on the offline graph run unchanged on what is live, and a drift check is a
comparison of two values of the same shape.

Matching (the names of autonamed resources differ between the offline engine and AWS):

| declared type | matched live by |
|---|---|
| VPC, subnet, security group | the `Name` tag the program sets |
| default security group | group name `default` in the matched VPC |
| security group ingress/egress rule | content: group, direction, protocol, ports, peer (CIDR, group or prefix list) |
| EKS cluster, node group, log group, KMS alias | their deterministic names |
| KMS key | the declared alias that targets it |
| launch template, placement group | the `accelplane.io/pool` tag |
| bucket | the `accelplane.io/bucket-role` tag (and the declared name prefix) |
| bucket settings, secret policy, inline policy, attachment, listener | their parent, then name or port |
| IAM role | its declared name, else Pulumi's autoname `<logical name>-<7 hex>` |
| OIDC provider | the cluster's issuer |
| load balancer | the platform tag (one), else the name prefix |
| target group | its `accelplane:service` and `accelplane:backend` tags, else as a load balancer |
| listener rule | its listener, then its conditions (the path pattern), else its priority |
| secret | its declared name or name prefix |

Live resources that carry the platform's identity (tag, parent group, role, load balancer) but
match no declared resource are `unexpected`: a rule added by hand, a node group created outside
the code, an extra inline policy, a listener rule or a target group added by hand.

What AWS creates on the platform's behalf is found by reference, not by tag, and judged against
what AWS itself puts there: the EKS cluster security group (EKS creates it untagged and attaches it
to the nodes) may hold EKS's two rules (all traffic from itself, all traffic out) and the declared
ones, any other rule is unexpected; a node role's access entry (EKS makes one per managed node
group role) and, with `bootstrapClusterCreatorAdminPermissions`, the cluster creator's entry made
with the cluster are EKS's, any other access entry or managed add-on the declaration does not have
is unexpected; a target group bound to the platform's load balancer is the platform's, tagged or not.

`read` counts the live objects read per type (matched, unexpected, and AWS's own that were judged
as such), which the report lists as its coverage.

Forward actions (listener default actions, listener rule actions) keep their target groups and
weights in the declared shape (`forward.targetGroups: [{arn, weight}]`); `routing` judges them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from accelplane.clouds.aws.verify.inventory import UNREADABLE, Collector, Inventory, tags_of
from accelplane.clouds.aws.verify.routing import BACKEND_TAG, SERVICE_TAG, live_conditions, live_forward
from accelplane.rules.view import UNKNOWN, Resource
from accelplane.verify.canonical import canonical, symbol
from accelplane.verify.declared import ACCOUNT_SYMBOL, DeclaredPlatform
from accelplane.verify.live import LiveView, Unexpected

POOL_TAG = "accelplane.io/pool"
# How close to the cluster's creation EKS makes the creator's access entry (it is made with the
# cluster, seconds apart); an entry made later was granted by hand.
_CREATOR_ENTRY_WINDOW_S = 600.0
_CREATOR_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
BUCKET_ROLE_TAG = "accelplane.io/bucket-role"
PLATFORM_TAG = "accelplane:platform"

# Declared types verify reads; everything else is listed as not verified (routes, NAT, Kubernetes).
VERIFIED_TYPES = frozenset(
    {
        "aws:ec2/vpc:Vpc",
        "aws:ec2/subnet:Subnet",
        "aws:ec2/securityGroup:SecurityGroup",
        "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup",
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
        "aws:ec2/launchTemplate:LaunchTemplate",
        "aws:ec2/placementGroup:PlacementGroup",
        "aws:eks/cluster:Cluster",
        "aws:eks/nodeGroup:NodeGroup",
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider",
        "aws:iam/role:Role",
        "aws:iam/rolePolicy:RolePolicy",
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "aws:kms/key:Key",
        "aws:kms/alias:Alias",
        "aws:s3/bucket:Bucket",
        "aws:s3/bucketVersioning:BucketVersioning",
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls",
        "aws:s3/bucketPolicy:BucketPolicy",
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
        "aws:lb/loadBalancer:LoadBalancer",
        "aws:lb/targetGroup:TargetGroup",
        "aws:lb/listener:Listener",
        "aws:lb/listenerRule:ListenerRule",
        "aws:secretsmanager/secret:Secret",
        "aws:secretsmanager/secretPolicy:SecretPolicy",
        "aws:secretsmanager/secretVersion:SecretVersion",
        "aws:cloudwatch/logGroup:LogGroup",
    }
)

_INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
_EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
_BUCKET_SETTINGS = {
    "aws:s3/bucketVersioning:BucketVersioning": "versioning",
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": "encryption",
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": "public_access_block",
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": "ownership",
    "aws:s3/bucketPolicy:BucketPolicy": "policy",
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": "lifecycle",
}


# -- wire format --------------------------------------------------------------------------------


def camel(key: str) -> str:
    """AWS API member name to Pulumi wire name: `SSEAlgorithm` -> `sseAlgorithm`, `ID` -> `id`."""
    if not key or key[0].islower():
        return key
    run = 0
    while run < len(key) and key[run].isupper():
        run += 1
    if run == len(key):
        return key.lower()
    if run > 1:
        run -= 1
    return key[:run].lower() + key[run:]


def _template_key(template: Any, key: str) -> str | None:
    if isinstance(template, Mapping):
        lowered = key.lower()
        for candidate in template:
            if candidate.lower() == lowered:
                return candidate
    return None


def _element_template(template: Any) -> Any:
    if not isinstance(template, list):
        return None
    merged: dict[str, Any] = {}
    for item in template:
        if isinstance(item, Mapping):
            for key, value in item.items():
                merged.setdefault(key, value)
    return merged or None


def wire(value: Any, template: Any = None, renames: Mapping[str, str] | None = None) -> Any:
    """An API response value in the wire format, spelling keys as the declared inputs do."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "ResponseMetadata":
                continue
            if key == "Tags" and isinstance(item, list):
                out["tags"] = tags_of(item)
                continue
            name = (renames or {}).get(key) or _template_key(template, key) or camel(key)
            sub = template.get(name) if isinstance(template, Mapping) else None
            out[name] = wire(item, sub, renames)
        return out
    if isinstance(value, list):
        element = _element_template(template)
        return [wire(item, element, renames) for item in value]
    return value


def _json(document: Any) -> Any:
    if isinstance(document, (dict, list)):
        return json.dumps(document, sort_keys=True)
    return document


def _int(value: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _bool_attr(value: Any) -> Any:
    return value == "true" if isinstance(value, str) else value


_ACTION_RENAMES = {
    "RedirectConfig": "redirect",
    "FixedResponseConfig": "fixedResponse",
    "ForwardConfig": "forward",
}


def _actions(actions: Any, template: Any) -> list[Any]:
    """Listener or rule actions in the wire format, forwards as `{targetGroups: [{arn, weight}], ...}`."""
    out = []
    for action in actions or []:
        converted = wire(action, _element_template(template), renames=_ACTION_RENAMES)
        if action.get("Type") == "forward":
            converted["forward"] = live_forward(action)
        out.append(converted)
    return out


def _created(value: Any) -> float | None:
    """An API timestamp (a datetime from boto3, or ISO text) as epoch seconds."""
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return None
    return None


def _eks_default_rule(rule: Mapping[str, Any]) -> bool:
    """One of the rules EKS creates in the cluster security group: all traffic from the group itself
    (ingress), all traffic to anywhere (egress, IPv4 or IPv6). Any other rule there was added."""
    if rule.get("IpProtocol") != "-1":
        return False
    if rule.get("IsEgress"):
        return rule.get("CidrIpv4") == "0.0.0.0/0" or rule.get("CidrIpv6") == "::/0"
    return (rule.get("ReferencedGroupInfo") or {}).get("GroupId") == rule.get("GroupId")


# -- the view -----------------------------------------------------------------------------------


@dataclass
class AwsLiveView(LiveView):
    # Every live target group of the platform (ARN -> name, tags): what a forward to one that is not
    # a backend's is, in its message.
    target_groups: dict[str, dict[str, Any]] = field(default_factory=dict)


class ViewBuilder:
    def __init__(self, declared: DeclaredPlatform, collector: Collector) -> None:
        self.declared = declared
        self.collector = collector
        self.inv: Inventory = collector.inventory
        self.platform = declared.platform
        self.region = declared.platform.region
        self.view = AwsLiveView(symbols=declared.symbols())
        self.symbols = self.view.symbols

    # -- helpers -----------------------------------------------------------------------------

    def _live(
        self,
        declared: Resource | None,
        type_token: str,
        live_id: str,
        props: dict[str, Any],
        outputs: Mapping[str, Any] | None = None,
        *,
        raw: Any = None,
    ) -> Resource:
        stack = self.declared.stack
        unreadable = {k for k, v in props.items() if v is UNREADABLE}
        resource = Resource(
            urn=declared.urn if declared else f"urn:pulumi:{stack}::live::{type_token}::{live_id}",
            type=type_token,
            name=declared.name if declared else live_id,
            # Unread values become the rules' UNKNOWN: a rule touching one does not judge the resource.
            props={k: (UNKNOWN if v is UNREADABLE else v) for k, v in props.items() if v is not None},
            parent=declared.parent if declared else None,
            # `protect` lives in Pulumi's state, not in AWS: the declared resource's is the live one's.
            protect=declared.protect if declared else False,
            id=live_id,
            outputs={k: v for k, v in (outputs or {}).items() if v is not None},
        )
        self.view.resources.append(resource)
        self.view.read[type_token] += 1
        if declared is not None:
            self.view.matched[declared.urn] = resource
            if unreadable:
                self.view.unreadable_props[declared.urn] = unreadable
            sym = symbol(declared.name)
            verbatim = {v for v in declared.props.values() if isinstance(v, str)}
            for token in (live_id, *(v for v in (outputs or {}).values() if isinstance(v, str))):
                # A deterministic name (cluster, node group) is the same on both sides: no symbol needed.
                if token not in verbatim:
                    self.symbols.add(token, sym, live=True)
            if raw is not None:
                self.view.raw[declared.urn] = raw
        return resource

    def _unexpected(self, resource: Resource, reason: str) -> None:
        self.view.unexpected.append(Unexpected(resource, reason))

    def _unreadable(self, declared: Iterable[Resource], reason: str) -> None:
        for resource in declared:
            self.view.unreadable[resource.urn] = reason

    def _live_ref(self, declared_value: Any) -> str | None:
        """The live id/ARN/name that a declared reference (a mock id or ARN) points at, if matched."""
        return self.symbols.live_value(declared_value)

    def _arn(self, service: str, resource: str) -> str:
        return f"arn:aws:{service}:{self.region}:{self.inv.account or self.declared.account}:{resource}"

    # -- build -------------------------------------------------------------------------------

    def build(self) -> AwsLiveView:
        if self.inv.account:
            self.symbols.add(self.inv.account, ACCOUNT_SYMBOL, live=True)
        for step in (
            self._network,
            self._cluster,
            self._security_groups,
            self._security_group_rules,
            self._kms,
            self._buckets,
            self._iam,
            self._oidc,
            self._placement_groups,
            self._launch_templates_and_node_groups,
            self._load_balancing,
            self._secrets,
            self._logs,
            self._access,
        ):
            step()
        for resource in self.declared.resources:
            if (resource.type.startswith("aws:") and resource.type not in VERIFIED_TYPES) or resource.type.startswith(
                "kubernetes:"
            ):
                self.view.unverified[resource.type] += 1
            elif not resource.type.startswith("aws:") and resource.urn not in self.view.matched:
                # Components carry no settings; keep them so parent/child structure stays for the rules.
                self.view.resources.append(resource)
        return self.view

    # -- network -----------------------------------------------------------------------------

    def _by_name_tag(self, items: Any, type_token: str, build: Any) -> None:
        declared = self.declared.of_type(type_token)
        if items is UNREADABLE:
            self._unreadable(declared, "the describe call failed")
            return
        by_name = {tags_of(item.get("Tags")).get("Name"): item for item in items}
        for resource in declared:
            item = by_name.get(resource.tags().get("Name"))
            if item is not None:
                build(resource, item)

    def _network(self) -> None:
        def vpc(resource: Resource, item: dict[str, Any]) -> None:
            attributes = self.inv.vpc_attributes.get(item["VpcId"], {})
            self._live(
                resource,
                resource.type,
                item["VpcId"],
                {
                    "cidrBlock": item.get("CidrBlock"),
                    "enableDnsSupport": attributes.get("enableDnsSupport", UNREADABLE),
                    "enableDnsHostnames": attributes.get("enableDnsHostnames", UNREADABLE),
                    "tags": tags_of(item.get("Tags")),
                },
                {"arn": self._arn("ec2", f"vpc/{item['VpcId']}")},
            )

        def subnet(resource: Resource, item: dict[str, Any]) -> None:
            self._live(
                resource,
                resource.type,
                item["SubnetId"],
                {
                    "cidrBlock": item.get("CidrBlock"),
                    "availabilityZone": item.get("AvailabilityZone"),
                    "mapPublicIpOnLaunch": item.get("MapPublicIpOnLaunch"),
                    "vpcId": item.get("VpcId"),
                    "tags": tags_of(item.get("Tags")),
                },
                {"arn": item.get("SubnetArn")},
            )

        self._by_name_tag(self.inv.vpcs, "aws:ec2/vpc:Vpc", vpc)
        self._by_name_tag(self.inv.subnets, "aws:ec2/subnet:Subnet", subnet)

    def _cluster(self) -> None:
        for resource in self.declared.of_type("aws:eks/cluster:Cluster"):
            cluster = self.inv.cluster
            if cluster is UNREADABLE:
                self._unreadable([resource], "eks:DescribeCluster failed")
                continue
            if not cluster:
                continue
            vpc = cluster.get("resourcesVpcConfig") or {}
            logging = (cluster.get("logging") or {}).get("clusterLogging") or []
            encryption = (cluster.get("encryptionConfig") or [None])[0]
            props = {
                "name": cluster["name"],
                "version": cluster.get("version"),
                "roleArn": cluster.get("roleArn"),
                "vpcConfig": {
                    "subnetIds": vpc.get("subnetIds"),
                    "securityGroupIds": vpc.get("securityGroupIds"),
                    "endpointPrivateAccess": vpc.get("endpointPrivateAccess"),
                    "endpointPublicAccess": vpc.get("endpointPublicAccess"),
                    "publicAccessCidrs": vpc.get("publicAccessCidrs"),
                },
                "encryptionConfig": wire(encryption) if encryption else None,
                "enabledClusterLogTypes": sorted(
                    {kind for entry in logging if entry.get("enabled") for kind in entry.get("types", [])}
                ),
                "accessConfig": wire(cluster["accessConfig"]) if cluster.get("accessConfig") else None,
                "tags": cluster.get("tags") or {},
            }
            self._live(resource, resource.type, cluster["name"], props, {"arn": cluster.get("arn")}, raw=cluster)
            self.symbols.add(
                vpc.get("clusterSecurityGroupId"), symbol(resource.name, "clusterSecurityGroup"), live=True
            )
            issuer = ((cluster.get("identity") or {}).get("oidc") or {}).get("issuer", "")
            self.symbols.add(issuer.removeprefix("https://"), symbol(resource.name, "oidcIssuer"), live=True)

    # -- security groups ---------------------------------------------------------------------

    def _security_groups(self) -> None:
        groups = self.inv.security_groups
        declared_groups = self.declared.of_type("aws:ec2/securityGroup:SecurityGroup")
        defaults = self.declared.of_type("aws:ec2/defaultSecurityGroup:DefaultSecurityGroup")
        if groups is UNREADABLE:
            self._unreadable([*declared_groups, *defaults], "ec2:DescribeSecurityGroups failed")
            return

        def props(group: dict[str, Any]) -> dict[str, Any]:
            return {
                "name": group.get("GroupName"),
                "description": group.get("Description"),
                "vpcId": group.get("VpcId"),
                "tags": tags_of(group.get("Tags")),
            }

        by_name = {tags_of(g.get("Tags")).get("Name"): g for g in groups.values() if g.get("GroupName") != "default"}
        for resource in declared_groups:
            group = by_name.get(resource.tags().get("Name"))
            if group is not None:
                self._live(
                    resource, resource.type, group["GroupId"], props(group), {"arn": group.get("SecurityGroupArn")}
                )
        for resource in defaults:
            vpc_id = self._live_ref(resource.props.get("vpcId")) or resource.props.get("vpcId")
            group = next(
                (g for g in groups.values() if g.get("GroupName") == "default" and g.get("VpcId") == vpc_id), None
            )
            if group is not None:
                self._live(
                    resource, resource.type, group["GroupId"], props(group), {"arn": group.get("SecurityGroupArn")}
                )

    def _rule_key(self, type_token: str, props: Mapping[str, Any]) -> str:
        protocol = str(props.get("ipProtocol", "")).lower()
        ports = (None, None) if protocol == "-1" else (props.get("fromPort"), props.get("toPort"))
        peer = next(
            (
                props[key]
                for key in ("cidrIpv4", "cidrIpv6", "referencedSecurityGroupId", "prefixListId")
                if props.get(key) is not None
            ),
            None,
        )
        parts = [type_token, props.get("securityGroupId"), protocol, *ports, peer]
        return json.dumps(canonical(parts, self.symbols), default=str)

    def _security_group_rules(self) -> None:
        rules = self.inv.security_group_rules
        declared = [*self.declared.of_type(_INGRESS), *self.declared.of_type(_EGRESS)]
        groups = self.inv.security_groups
        if rules is UNREADABLE or groups is UNREADABLE:
            self._unreadable(declared, "ec2:DescribeSecurityGroupRules failed")
            return
        owned = {
            live.id: self.declared_name(urn)
            for urn, live in self.view.matched.items()
            if live.type in ("aws:ec2/securityGroup:SecurityGroup", "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup")
        }
        cluster_group = self.inv.cluster_security_group
        cluster_name = (self.inv.cluster or {}).get("name") if self.inv.cluster else None
        if cluster_group and cluster_group in self.inv.referenced_groups:
            # EKS creates it untagged and attaches it to the nodes: its rules are the platform's too.
            owned[cluster_group] = f"the EKS cluster security group of {cluster_name} (created by EKS)"
        for group_id in self.inv.referenced_groups:
            if group_id in groups:
                self.view.read["aws:ec2/securityGroup:SecurityGroup"] += 1
        wanted: dict[str, list[Resource]] = {}
        for resource in declared:
            wanted.setdefault(self._rule_key(resource.type, resource.props), []).append(resource)
        for rule in rules:
            if rule.get("GroupId") not in owned:
                if rule.get("GroupId") in self.inv.referenced_groups:
                    # A group a declared resource attaches that the declaration does not create: the
                    # reference itself is drift of that resource; its rules are read, not judged.
                    self.view.read[_EGRESS if rule.get("IsEgress") else _INGRESS] += 1
                continue
            type_token = _EGRESS if rule.get("IsEgress") else _INGRESS
            protocol = rule.get("IpProtocol")
            props = {
                "securityGroupId": rule.get("GroupId"),
                "ipProtocol": protocol,
                "fromPort": None if protocol == "-1" else rule.get("FromPort"),
                "toPort": None if protocol == "-1" else rule.get("ToPort"),
                "cidrIpv4": rule.get("CidrIpv4"),
                "cidrIpv6": rule.get("CidrIpv6"),
                "referencedSecurityGroupId": (rule.get("ReferencedGroupInfo") or {}).get("GroupId"),
                "prefixListId": rule.get("PrefixListId"),
                "description": rule.get("Description"),
                "tags": tags_of(rule.get("Tags")),
            }
            candidates = wanted.get(self._rule_key(type_token, props))
            rule_id = rule["SecurityGroupRuleId"]
            outputs = {"arn": self._arn("ec2", f"security-group-rule/{rule_id}")}
            if candidates:
                self._live(candidates.pop(0), type_token, rule_id, props, outputs)
            elif rule["GroupId"] == cluster_group and _eks_default_rule(rule):
                self.view.read[type_token] += 1  # one of the two rules EKS creates in it
            else:
                group = owned[rule["GroupId"]]
                self._unexpected(
                    self._live(None, type_token, rule_id, props, outputs),
                    f"a rule of {group} that the declaration does not have",
                )

    def declared_name(self, urn: str) -> str:
        return urn.rsplit("::", 1)[-1]

    # -- KMS ---------------------------------------------------------------------------------

    def _kms(self) -> None:
        keys = self.declared.of_type("aws:kms/key:Key")
        aliases = self.declared.of_type("aws:kms/alias:Alias")
        if self.inv.kms_aliases is UNREADABLE:
            self._unreadable([*keys, *aliases], "kms:ListAliases failed")
            return
        alias_of_key = {a.props.get("targetKeyId"): a for a in aliases}
        matched_keys: set[str] = set()
        for resource in keys:
            alias = alias_of_key.get(resource.id)
            live_alias = self.inv.kms_aliases.get(alias.props.get("name")) if alias else None
            key_id = (live_alias or {}).get("TargetKeyId")
            entry = self.inv.kms_keys.get(key_id) if isinstance(key_id, str) else None
            if entry is None or not isinstance(key_id, str):
                if alias is None:
                    self.view.missing_reason[resource.urn] = "no declared alias to find it by"
                continue
            metadata, rotation, policy = entry.get("metadata"), entry.get("rotation"), entry.get("policy")
            if metadata is UNREADABLE or metadata is None:
                self._unreadable([resource], "kms:DescribeKey failed")
                continue
            matched_keys.add(key_id)
            props = {
                "description": metadata.get("Description"),
                "keyUsage": metadata.get("KeyUsage"),
                "customerMasterKeySpec": metadata.get("KeySpec"),
                "enableKeyRotation": rotation.get("KeyRotationEnabled") if rotation else rotation,
                "rotationPeriodInDays": rotation.get("RotationPeriodInDays") if rotation else None,
                "policy": policy,
                "tags": entry.get("tags") or {},
            }
            arn = metadata.get("Arn") or self._arn("kms", f"key/{key_id}")
            self._live(resource, resource.type, key_id, props, {"arn": arn, "keyId": key_id}, raw=entry)
        for resource in aliases:
            live_alias = self.inv.kms_aliases.get(resource.props.get("name"))
            if live_alias is not None:
                self._live(
                    resource,
                    resource.type,
                    live_alias["AliasName"],
                    {"name": live_alias["AliasName"], "targetKeyId": live_alias.get("TargetKeyId")},
                    {"arn": live_alias.get("AliasArn")},
                )
        for key_id, entry in self.inv.kms_keys.items():
            if key_id in matched_keys or not entry.get("tags"):
                continue
            state = (entry.get("metadata") or {}).get("KeyState")
            if state in ("PendingDeletion", "PendingReplicaDeletion"):
                continue
            self._unexpected(
                self._live(None, "aws:kms/key:Key", key_id, {"tags": entry.get("tags") or {}}),
                "a KMS key tagged with the platform that the declaration does not have",
            )

    # -- S3 ----------------------------------------------------------------------------------

    def _buckets(self) -> None:
        declared_buckets = self.declared.of_type("aws:s3/bucket:Bucket")
        settings = [r for t in _BUCKET_SETTINGS for r in self.declared.of_type(t)]
        if self.inv.tagged is UNREADABLE:
            self._unreadable([*declared_buckets, *settings], "tag:GetResources failed")
            return
        claimed: set[str] = set()
        for resource in declared_buckets:
            role = resource.tags().get(BUCKET_ROLE_TAG)
            prefix = resource.props.get("bucketPrefix") or ""
            name = resource.props.get("bucket")
            candidates = sorted(
                n
                for n, state in self.inv.buckets.items()
                if n not in claimed
                and (n == name if name else n.startswith(prefix))
                and (role is None or state.tags.get(BUCKET_ROLE_TAG) == role)
            )
            if not candidates:
                continue
            state = self.inv.buckets[candidates[0]]
            claimed.add(state.name)
            self._live(
                resource,
                resource.type,
                state.name,
                {"bucket": state.name, "tags": state.tags},
                {"arn": f"arn:aws:s3:::{state.name}", "bucket": state.name},
                raw=state,
            )
        for name, state in self.inv.buckets.items():
            if name not in claimed:
                self._unexpected(
                    self._live(
                        None,
                        "aws:s3/bucket:Bucket",
                        name,
                        {"bucket": name, "tags": state.tags},
                        {"arn": f"arn:aws:s3:::{name}", "bucket": name},
                    ),
                    "a bucket tagged with the platform that the declaration does not have",
                )
        for resource in settings:
            bucket = self._live_ref(resource.props.get("bucket"))
            state = self.inv.buckets.get(bucket) if bucket else None
            if not bucket or state is None:
                continue
            value = getattr(state, _BUCKET_SETTINGS[resource.type])
            if value is UNREADABLE:
                self._unreadable([resource], f"reading {_BUCKET_SETTINGS[resource.type]} of {bucket} failed")
                continue
            props = self._bucket_setting(resource, value)
            if props is not None:
                self._live(resource, resource.type, bucket, {"bucket": bucket, **props})

    @staticmethod
    def _bucket_setting(resource: Resource, value: Any) -> dict[str, Any] | None:
        kind = _BUCKET_SETTINGS[resource.type]
        if kind == "versioning":
            value = value or {}
            return {
                "versioningConfiguration": {
                    "status": value.get("Status", "Disabled"),
                    "mfaDelete": value.get("MFADelete"),
                }
            }
        if value is None:
            return None  # the API said: no such configuration
        if kind == "encryption":
            return {"rules": wire(value.get("Rules", []), resource.props.get("rules"))}
        if kind == "public_access_block":
            return wire(value, resource.props)
        if kind == "ownership":
            rules = value.get("Rules") or [{}]
            return {"rule": wire(rules[0], resource.props.get("rule"))}
        if kind == "policy":
            return {"policy": value}
        return {"rules": wire(value, resource.props.get("rules"))}

    # -- IAM ---------------------------------------------------------------------------------

    @staticmethod
    def _autonamed(logical: str, physical: str) -> bool:
        return re.fullmatch(re.escape(logical) + r"-[0-9a-f]{7}", physical) is not None

    def _iam(self) -> None:
        roles_declared = self.declared.of_type("aws:iam/role:Role")
        inline = self.declared.of_type("aws:iam/rolePolicy:RolePolicy")
        attachments = self.declared.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        roles = self.inv.roles
        if roles is UNREADABLE:
            self._unreadable([*roles_declared, *inline, *attachments], "iam:GetAccountAuthorizationDetails failed")
            return
        claimed: dict[str, Resource] = {}
        for resource in roles_declared:
            name = resource.props.get("name")
            candidates = [n for n in roles if (n == name if name else self._autonamed(resource.name, n))]
            candidates.sort(key=lambda n: (tags_of(roles[n].get("Tags")).get(PLATFORM_TAG) != self.platform.name, n))
            if not candidates:
                continue
            role = roles[candidates[0]]
            claimed[role["RoleName"]] = resource
            self._live(
                resource,
                resource.type,
                role["RoleName"],
                self._role_props(role),
                {"arn": role["Arn"], "name": role["RoleName"], "uniqueId": role.get("RoleId")},
                raw=role,
            )
        for name, role in roles.items():
            if name not in claimed and tags_of(role.get("Tags")).get(PLATFORM_TAG) == self.platform.name:
                self._unexpected(
                    self._live(
                        None, "aws:iam/role:Role", name, self._role_props(role), {"arn": role["Arn"], "name": name}
                    ),
                    "a role tagged with the platform that the declaration does not have",
                )
        for role_name, declared_role in claimed.items():
            role = roles[role_name]
            self._inline_policies(role, declared_role, inline)
            self._attachments(role, declared_role, attachments)

    @staticmethod
    def _role_props(role: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "name": role["RoleName"],
            "path": role.get("Path"),
            "assumeRolePolicy": _json(role.get("AssumeRolePolicyDocument")),
            "maxSessionDuration": role.get("MaxSessionDuration"),
            "description": role.get("Description"),
            "permissionsBoundary": (role.get("PermissionsBoundary") or {}).get("PermissionsBoundaryArn"),
            "tags": tags_of(role.get("Tags")),
        }

    def _of_role(self, declared: list[Resource], role: Resource) -> list[Resource]:
        sym = symbol(role.name)
        return [r for r in declared if self.symbols.symbol_of(r.props.get("role")) == sym]

    def _inline_policies(self, role: Mapping[str, Any], declared_role: Resource, inline: list[Resource]) -> None:
        live = {p["PolicyName"]: p for p in role.get("RolePolicyList") or []}
        mine = self._of_role(inline, declared_role)
        pairs: list[tuple[Resource, str]] = []
        for resource in list(mine):
            name = resource.props.get("name")
            found = next((n for n in live if (n == name if name else self._autonamed(resource.name, n))), None)
            if found is not None:
                pairs.append((resource, found))
                mine.remove(resource)
                live_name = found
                live.pop(live_name)
        if len(mine) == 1 and len(live) == 1:  # one each left: a renamed policy is still that policy
            pairs.append((mine.pop(), next(iter(live))))
            live.clear()
        for resource, name in pairs:
            document = next(p for p in role["RolePolicyList"] if p["PolicyName"] == name)["PolicyDocument"]
            self._live(
                resource,
                resource.type,
                f"{role['RoleName']}:{name}",
                {"role": role["RoleName"], "name": name, "policy": _json(document)},
            )
        for name, policy in live.items():
            self._unexpected(
                self._live(
                    None,
                    "aws:iam/rolePolicy:RolePolicy",
                    f"{role['RoleName']}:{name}",
                    {"role": role["RoleName"], "name": name, "policy": _json(policy["PolicyDocument"])},
                ),
                f"an inline policy of {declared_role.name} that the declaration does not have",
            )

    def _attachments(self, role: Mapping[str, Any], declared_role: Resource, attachments: list[Resource]) -> None:
        live = {p["PolicyArn"] for p in role.get("AttachedManagedPolicies") or []}
        for resource in self._of_role(attachments, declared_role):
            wanted = canonical(resource.props.get("policyArn"), self.symbols)
            found = next((arn for arn in live if canonical(arn, self.symbols) == wanted), None)
            if found is not None:
                live.discard(found)
                self._live(
                    resource,
                    resource.type,
                    f"{role['RoleName']}/{found}",
                    {"role": role["RoleName"], "policyArn": found},
                )
        for arn in sorted(live):
            self._unexpected(
                self._live(
                    None,
                    "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
                    f"{role['RoleName']}/{arn}",
                    {"role": role["RoleName"], "policyArn": arn},
                ),
                f"a managed policy attached to {declared_role.name} that the declaration does not attach",
            )

    def _oidc(self) -> None:
        for resource in self.declared.of_type("aws:iam/openIdConnectProvider:OpenIdConnectProvider"):
            for arn, provider in self.inv.oidc_providers.items():
                url = provider.get("Url", "")
                self._live(
                    resource,
                    resource.type,
                    arn,
                    {
                        "url": url if url.startswith("https://") else f"https://{url}",
                        "clientIdLists": provider.get("ClientIDList"),
                        "thumbprintLists": provider.get("ThumbprintList"),
                        "tags": tags_of(provider.get("Tags")),
                    },
                    {"arn": arn},
                )
                break

    # -- compute -----------------------------------------------------------------------------

    def _placement_groups(self) -> None:
        declared = self.declared.of_type("aws:ec2/placementGroup:PlacementGroup")
        groups = self.inv.placement_groups
        if not declared:
            return
        if groups is UNREADABLE:
            self._unreadable(declared, "ec2:DescribePlacementGroups failed")
            return
        by_pool = {tags_of(g.get("Tags")).get(POOL_TAG): g for g in groups}
        for resource in declared:
            group = by_pool.get(resource.tags().get(POOL_TAG))
            if group is not None:
                self._live(
                    resource,
                    resource.type,
                    group["GroupName"],
                    {"name": group["GroupName"], "strategy": group.get("Strategy"), "tags": tags_of(group.get("Tags"))},
                    {"arn": group.get("GroupArn"), "name": group["GroupName"]},
                )

    def _launch_templates_and_node_groups(self) -> None:
        templates = self.inv.launch_templates
        declared_templates = self.declared.of_type("aws:ec2/launchTemplate:LaunchTemplate")
        node_groups = self.inv.nodegroups
        used_versions = {
            (ng.get("launchTemplate") or {}).get("id"): str((ng.get("launchTemplate") or {}).get("version"))
            for ng in node_groups.values()
            if ng and (ng.get("launchTemplate") or {}).get("id")
        }
        if templates is UNREADABLE:
            self._unreadable(declared_templates, "ec2:DescribeLaunchTemplates failed")
        else:
            by_pool = {tags_of(t.get("Tags")).get(POOL_TAG): t for t in templates.values()}
            for resource in declared_templates:
                template = by_pool.get(resource.tags().get(POOL_TAG))
                if template is None:
                    continue
                template_id = template["LaunchTemplateId"]
                version = used_versions.get(template_id) or str(template.get("DefaultVersionNumber"))
                data = self.collector.launch_template_version(template_id, version)
                if data is UNREADABLE:
                    self._unreadable([resource], f"ec2:DescribeLaunchTemplateVersions failed for version {version}")
                    continue
                props = wire(
                    (data or {}).get("LaunchTemplateData") or {},
                    resource.props,
                    renames={"Groups": "securityGroups"},
                )
                # The template's own tags are not instance tags (moto reports them among the data's).
                props["tagSpecifications"] = [
                    spec
                    for spec in props.get("tagSpecifications") or []
                    if spec.get("resourceType") != "launch-template"
                ]
                props.update(
                    {
                        "name": template.get("LaunchTemplateName"),
                        "tags": tags_of(template.get("Tags")),
                        "defaultVersion": template.get("DefaultVersionNumber"),
                        "latestVersion": template.get("LatestVersionNumber"),
                    }
                )
                self._live(
                    resource,
                    resource.type,
                    template_id,
                    props,
                    {
                        "arn": self._arn("ec2", f"launch-template/{template_id}"),
                        "name": template.get("LaunchTemplateName"),
                    },
                    raw={
                        "template": template,
                        "version": version,
                        "data": data,
                        # The program makes every new version the default (`updateDefaultVersion`).
                        "follows_default": resource.props.get("updateDefaultVersion") in (True, "true"),
                    },
                )
        self._node_groups()

    def _node_groups(self) -> None:
        declared = self.declared.of_type("aws:eks/nodeGroup:NodeGroup")
        names = self.inv.nodegroup_names
        if names is UNREADABLE or self.inv.cluster is UNREADABLE:
            self._unreadable(declared, "eks:ListNodegroups failed")
            return
        by_name = {r.props.get("nodeGroupName"): r for r in declared}
        for name, group in sorted(self.inv.nodegroups.items()):
            resource = by_name.get(name)
            if group is UNREADABLE:
                if resource is not None:
                    self._unreadable([resource], "eks:DescribeNodegroup failed")
                continue
            if not group:
                continue
            template = group.get("launchTemplate") or {}
            props = {
                "clusterName": group.get("clusterName"),
                "nodeGroupName": name,
                "nodeRoleArn": group.get("nodeRole"),
                "subnetIds": group.get("subnets"),
                "instanceTypes": group.get("instanceTypes"),
                "amiType": group.get("amiType"),
                "releaseVersion": group.get("releaseVersion"),
                "version": group.get("version"),
                "capacityType": group.get("capacityType"),
                "diskSize": group.get("diskSize") if not template else None,
                "scalingConfig": group.get("scalingConfig"),
                "updateConfig": group.get("updateConfig"),
                "labels": group.get("labels") or {},
                "taints": group.get("taints") or [],
                "launchTemplate": {
                    "id": template.get("id"),
                    "name": template.get("name"),
                    "version": template.get("version"),
                }
                if template
                else None,
                "remoteAccess": group.get("remoteAccess") if not template else None,
                "tags": group.get("tags") or {},
            }
            live_id = f"{group.get('clusterName')}:{name}"
            outputs = {"arn": group.get("nodegroupArn")}
            if resource is not None:
                self._live(resource, resource.type, live_id, props, outputs, raw=group)
            else:
                self._unexpected(
                    self._live(None, "aws:eks/nodeGroup:NodeGroup", live_id, props, outputs),
                    "a node group in the platform's cluster that the declaration does not have",
                )

    # -- load balancing ----------------------------------------------------------------------

    def _pair(
        self, declared: list[Resource], live: dict[str, dict[str, Any]], name_key: str
    ) -> list[tuple[Resource, str]]:
        if len(declared) == 1 and len(live) == 1:
            return [(declared[0], next(iter(live)))]
        pairs = []
        for resource in declared:
            name = resource.props.get("name")
            prefix = resource.name[:24]
            found = next(
                (
                    arn
                    for arn, item in live.items()
                    if (item.get(name_key) == name if name else str(item.get(name_key, "")).startswith(prefix))
                ),
                None,
            )
            if found:
                pairs.append((resource, found))
        return pairs

    def _load_balancing(self) -> None:
        inv = self.inv
        lbs = self.declared.of_type("aws:lb/loadBalancer:LoadBalancer")
        tgs = self.declared.of_type("aws:lb/targetGroup:TargetGroup")
        listeners = self.declared.of_type("aws:lb/listener:Listener")
        if inv.tagged is UNREADABLE:
            self._unreadable([*lbs, *tgs, *listeners], "tag:GetResources failed")
            return
        for resource, arn in self._pair(lbs, inv.load_balancers, "LoadBalancerName"):
            lb = inv.load_balancers[arn]
            attributes = inv.lb_attributes.get(arn) or {}
            props = {
                "name": lb.get("LoadBalancerName"),
                "loadBalancerType": lb.get("Type"),
                "internal": lb.get("Scheme") == "internal",
                "subnets": [zone.get("SubnetId") for zone in lb.get("AvailabilityZones") or []],
                "securityGroups": lb.get("SecurityGroups"),
                "ipAddressType": lb.get("IpAddressType"),
                "dropInvalidHeaderFields": _bool_attr(
                    attributes.get("routing.http.drop_invalid_header_fields.enabled")
                ),
                "idleTimeout": _int(attributes.get("idle_timeout.timeout_seconds")),
                "enableDeletionProtection": _bool_attr(attributes.get("deletion_protection.enabled")),
                "tags": inv.elb_tags.get(arn, {}),
            }
            self._live(
                resource,
                resource.type,
                arn,
                props,
                {"arn": arn, "dnsName": lb.get("DNSName"), "name": lb.get("LoadBalancerName")},
                raw=lb,
            )
        for arn, tg in inv.target_groups.items():
            self.view.target_groups[arn] = {"name": tg.get("TargetGroupName"), "tags": inv.elb_tags.get(arn, {})}
        paired = self._pair_target_groups(tgs)
        for resource, arn in paired:
            tg = inv.target_groups[arn]
            attributes = inv.tg_attributes.get(arn) or {}
            props = {
                "name": tg.get("TargetGroupName"),
                "port": tg.get("Port"),
                "protocol": tg.get("Protocol"),
                "targetType": tg.get("TargetType"),
                "vpcId": tg.get("VpcId"),
                "deregistrationDelay": _int(attributes.get("deregistration_delay.timeout_seconds")),
                "healthCheck": {
                    "enabled": tg.get("HealthCheckEnabled"),
                    "path": tg.get("HealthCheckPath"),
                    "port": tg.get("HealthCheckPort"),
                    "protocol": tg.get("HealthCheckProtocol"),
                    "interval": tg.get("HealthCheckIntervalSeconds"),
                    "timeout": tg.get("HealthCheckTimeoutSeconds"),
                    "healthyThreshold": tg.get("HealthyThresholdCount"),
                    "unhealthyThreshold": tg.get("UnhealthyThresholdCount"),
                    "matcher": (tg.get("Matcher") or {}).get("HttpCode") or (tg.get("Matcher") or {}).get("GrpcCode"),
                },
                "tags": inv.elb_tags.get(arn, {}),
            }
            self._live(
                resource,
                resource.type,
                arn,
                props,
                {"arn": arn, "name": tg.get("TargetGroupName")},
                raw={"target_group": tg, "health": inv.target_health.get(arn)},
            )
        claimed = {arn for _, arn in paired}
        for arn, tg in inv.target_groups.items():
            if arn not in claimed:
                self._unexpected(
                    self._live(
                        None,
                        "aws:lb/targetGroup:TargetGroup",
                        arn,
                        {"name": tg.get("TargetGroupName"), "tags": inv.elb_tags.get(arn, {})},
                        {"arn": arn},
                    ),
                    "a target group tagged with the platform that the declaration does not have",
                )
        self._bound_target_groups()
        self._listeners(listeners)
        self._listener_rules(self.declared.of_type("aws:lb/listenerRule:ListenerRule"))

    def _bound_target_groups(self) -> None:
        """Target groups bound to the platform's load balancer that carry none of its tags."""
        names = {
            str(live.id): live.name
            for live in self.view.matched.values()
            if live.type == "aws:lb/loadBalancer:LoadBalancer"
        }
        seen: set[str] = set()
        for lb_arn, found in sorted(self.inv.bound_target_groups.items()):
            if lb_arn not in names or not found:
                continue  # not the platform's, or unreadable (its read error is reported)
            for tg in found:
                arn = tg["TargetGroupArn"]
                if arn in self.inv.target_groups or arn in seen:
                    continue
                seen.add(arn)
                self.view.target_groups[arn] = {"name": tg.get("TargetGroupName"), "tags": {}}
                self._unexpected(
                    self._live(
                        None,
                        "aws:lb/targetGroup:TargetGroup",
                        arn,
                        {
                            "name": tg.get("TargetGroupName"),
                            "port": tg.get("Port"),
                            "protocol": tg.get("Protocol"),
                            "targetType": tg.get("TargetType"),
                        },
                        {"arn": arn},
                    ),
                    f"a target group bound to {names[lb_arn]} that the declaration does not have",
                )

    def _pair_target_groups(self, declared: list[Resource]) -> list[tuple[Resource, str]]:
        """A backend's target group by its service and backend tags (their names share a long prefix and
        end in a random suffix); groups without those tags as load balancers are paired."""
        live = self.inv.target_groups
        by_backend = {
            (tags.get(SERVICE_TAG), tags.get(BACKEND_TAG)): arn
            for arn in sorted(live)
            if (tags := self.inv.elb_tags.get(arn, {})).get(BACKEND_TAG)
        }
        pairs: list[tuple[Resource, str]] = []
        rest: list[Resource] = []
        for resource in declared:
            key = (resource.tags().get(SERVICE_TAG), resource.tags().get(BACKEND_TAG))
            if key[1] is None:
                rest.append(resource)
            elif key in by_backend:
                pairs.append((resource, by_backend.pop(key)))
            else:
                self.view.missing_reason[resource.urn] = (
                    f"no target group tagged {SERVICE_TAG}={key[0]}, {BACKEND_TAG}={key[1]} "
                    f"(service {key[0]}, backend {key[1]})"
                )
        taken = {arn for _, arn in pairs}
        untagged = {
            arn: tg
            for arn, tg in live.items()
            if arn not in taken and not self.inv.elb_tags.get(arn, {}).get(BACKEND_TAG)
        }
        return pairs + self._pair(rest, untagged, "TargetGroupName")

    def _listeners(self, declared: list[Resource]) -> None:
        inv = self.inv
        by_lb: dict[str, list[Resource]] = {}
        for resource in declared:
            lb_arn = self._live_ref(resource.props.get("loadBalancerArn"))
            if lb_arn:
                by_lb.setdefault(lb_arn, []).append(resource)
        lb_names = {
            str(live.id): live.name
            for live in self.view.matched.values()
            if live.type == "aws:lb/loadBalancer:LoadBalancer"
        }
        for lb_arn in lb_names:
            found = inv.listeners.get(lb_arn)
            if found is UNREADABLE:
                self._unreadable(by_lb.get(lb_arn, []), "elbv2:DescribeListeners failed")
                continue
            wanted = {r.props.get("port"): r for r in by_lb.get(lb_arn, [])}
            for listener in found or []:
                arn = listener["ListenerArn"]
                protocol = listener.get("Protocol")
                default_cert = next(
                    (c["CertificateArn"] for c in listener.get("Certificates") or [] if c.get("IsDefault", True)), None
                )
                resource = wanted.pop(listener.get("Port"), None)
                props = {
                    "loadBalancerArn": lb_arn,
                    "port": listener.get("Port"),
                    "protocol": protocol,
                    # The policy applies to TLS listeners only (some emulators report one on HTTP too).
                    "sslPolicy": listener.get("SslPolicy") if protocol in ("HTTPS", "TLS") else None,
                    "certificateArn": default_cert,
                    "alpnPolicy": (listener.get("AlpnPolicy") or [None])[0],
                    "defaultActions": _actions(
                        listener.get("DefaultActions"), resource.props.get("defaultActions") if resource else None
                    ),
                    "tags": inv.elb_tags.get(arn, {}),
                }
                if resource is not None:
                    self._live(resource, resource.type, arn, props, {"arn": arn}, raw=listener)
                else:
                    self._unexpected(
                        self._live(None, "aws:lb/listener:Listener", arn, props, {"arn": arn}),
                        f"a listener on {lb_names[lb_arn]} that the declaration does not have",
                    )

    def _listener_rules(self, declared: list[Resource]) -> None:
        """The rules of each matched listener (not its default rule: that is the listener's default action)."""
        inv = self.inv
        by_listener: dict[str, list[Resource]] = {}
        for resource in declared:
            listener_arn = self._live_ref(resource.props.get("listenerArn"))
            if listener_arn:
                by_listener.setdefault(listener_arn, []).append(resource)
        listeners = {
            str(live.id): live.name for live in self.view.matched.values() if live.type == "aws:lb/listener:Listener"
        }
        for listener_arn, listener_name in listeners.items():
            wanted = by_listener.get(listener_arn, [])
            found = inv.listener_rules.get(listener_arn)
            if found is UNREADABLE:
                self._unreadable(wanted, "elbv2:DescribeRules failed")
                continue
            rules = [rule for rule in found or [] if not rule.get("IsDefault")]
            props_of = {rule["RuleArn"]: self._rule_props(listener_arn, rule) for rule in rules}
            pairs = self._pair_rules(wanted, props_of)
            for resource, arn in pairs:
                rule = next(r for r in rules if r["RuleArn"] == arn)
                props = {**props_of[arn], "actions": _actions(rule.get("Actions"), resource.props.get("actions"))}
                self._live(resource, resource.type, arn, props, {"arn": arn}, raw=rule)
            claimed = {arn for _, arn in pairs}
            for arn, props in props_of.items():
                if arn not in claimed:
                    self._unexpected(
                        self._live(None, "aws:lb/listenerRule:ListenerRule", arn, props, {"arn": arn}),
                        f"a rule of listener {listener_name} that the declaration does not have",
                    )

    def _rule_props(self, listener_arn: str, rule: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "listenerArn": listener_arn,
            "priority": _int(rule.get("Priority")),
            "conditions": live_conditions(rule.get("Conditions") or []),
            "actions": _actions(rule.get("Actions"), None),
            "tags": self.inv.elb_tags.get(rule["RuleArn"], {}),
        }

    def _pair_rules(
        self, declared: list[Resource], live: Mapping[str, Mapping[str, Any]]
    ) -> list[tuple[Resource, str]]:
        """A rule is what it matches: paired by conditions first, so a changed priority is drift of the
        rule; then by priority, so a changed path pattern is too rather than one rule missing and one extra."""

        def key(conditions: Any) -> str:
            return json.dumps(canonical(conditions, self.symbols), sort_keys=True, default=str)

        pairs: list[tuple[Resource, str]] = []
        free = dict(live)
        rest = []
        for resource in declared:
            wanted = key(resource.props.get("conditions"))
            arn = next((a for a, props in free.items() if key(props.get("conditions")) == wanted), None)
            if arn is None:
                rest.append(resource)
            else:
                pairs.append((resource, arn))
                free.pop(arn)
        for resource in rest:
            priority = _int(resource.props.get("priority"))
            arn = next((a for a, props in free.items() if props.get("priority") == priority), None)
            if arn is not None:
                pairs.append((resource, arn))
                free.pop(arn)
        return pairs

    # -- secrets -----------------------------------------------------------------------------

    def _secrets(self) -> None:
        declared = self.declared.of_type("aws:secretsmanager/secret:Secret")
        policies = self.declared.of_type("aws:secretsmanager/secretPolicy:SecretPolicy")
        versions = self.declared.of_type("aws:secretsmanager/secretVersion:SecretVersion")
        if not declared:
            return
        if self.inv.secrets is UNREADABLE:
            self._unreadable([*declared, *policies, *versions], "secretsmanager:ListSecrets failed")
            return
        claimed: set[str] = set()
        for resource in declared:
            name, prefix = resource.props.get("name"), resource.props.get("namePrefix") or ""
            candidates = sorted(
                (
                    s
                    for s in self.inv.secrets
                    if s["ARN"] not in claimed and (s["Name"] == name if name else s["Name"].startswith(prefix))
                ),
                key=lambda s: (s.get("DeletedDate") is not None, s["Name"]),
            )
            if not candidates:
                continue
            secret = candidates[0]
            claimed.add(secret["ARN"])
            if secret.get("DeletedDate"):
                self.view.missing_reason[resource.urn] = (
                    f"{secret['Name']} is scheduled for deletion (deleted {secret['DeletedDate']}); "
                    "restore it with `aws secretsmanager restore-secret`"
                )
                continue
            props = {
                "name": secret["Name"],
                "description": secret.get("Description"),
                "kmsKeyId": secret.get("KmsKeyId"),
                "tags": tags_of(secret.get("Tags")),
            }
            self._live(
                resource,
                resource.type,
                secret["ARN"],
                props,
                {"arn": secret["ARN"], "name": secret["Name"]},
                raw=secret,
            )
        for secret in self.inv.secrets:
            if secret["ARN"] not in claimed and not secret.get("DeletedDate"):
                self._unexpected(
                    self._live(
                        None,
                        "aws:secretsmanager/secret:Secret",
                        secret["ARN"],
                        {"name": secret["Name"], "tags": tags_of(secret.get("Tags"))},
                        {"arn": secret["ARN"]},
                    ),
                    "a secret tagged with the platform that the declaration does not have",
                )
        for resource in policies:
            arn = self._live_ref(resource.props.get("secretArn"))
            if not arn:
                continue
            policy = self.inv.secret_policies.get(arn)
            if policy is UNREADABLE:
                self._unreadable([resource], "secretsmanager:GetResourcePolicy failed")
            elif policy:
                self._live(resource, resource.type, arn, {"secretArn": arn, "policy": policy})
        for resource in versions:
            arn = self._live_ref(resource.props.get("secretId"))
            secret = next((s for s in self.inv.secrets if s["ARN"] == arn), None)
            stages = (secret or {}).get("SecretVersionsToStages") or {}
            current = next((v for v, s in stages.items() if "AWSCURRENT" in s), None)
            if current:
                # Only the version's existence: its value is never read.
                self._live(resource, resource.type, f"{arn}|{current}", {"secretId": arn, "versionId": current})

    # -- EKS access and add-ons ----------------------------------------------------------------

    def _access(self) -> None:
        """Access entries and managed add-ons of the cluster against what the declaration and EKS make."""
        clusters = self.declared.of_type("aws:eks/cluster:Cluster")
        cluster = self.inv.cluster
        if not clusters or not isinstance(cluster, dict):
            return
        name = cluster.get("name")
        declared_addons = {r.props.get("addonName") for r in self.declared.of_type("aws:eks/addon:Addon")}
        for addon in sorted(self.inv.addons or []):
            if addon in declared_addons:
                self.view.read["aws:eks/addon:Addon"] += 1
                continue
            self._unexpected(
                self._live(None, "aws:eks/addon:Addon", f"{name}:{addon}", {"clusterName": name, "addonName": addon}),
                f"an EKS add-on of {name} that the declaration does not install",
            )
        entries = self.inv.access_entries
        if not isinstance(entries, dict):
            return
        granted = {
            canonical(r.props.get("principalArn"), self.symbols)
            for r in self.declared.of_type("aws:eks/accessEntry:AccessEntry")
        }
        node_roles = {str(group.get("nodeRole")) for group in self.inv.nodegroups.values() if group}
        access = clusters[0].props.get("accessConfig") or {}
        creator_window = (
            _created(cluster.get("createdAt")) if access.get("bootstrapClusterCreatorAdminPermissions") else None
        )
        associations = self._declared_associations()
        for principal, entry in sorted(entries.items()):
            if entry is UNREADABLE:
                continue  # the read error is reported
            policies = self.inv.access_policies.get(principal)
            if principal in node_roles or canonical(principal, self.symbols) in granted:
                self.view.read["aws:eks/accessEntry:AccessEntry"] += 1  # EKS's own for a node group, or declared
                self._associations(name, principal, policies, associations)
                continue
            created = _created((entry or {}).get("createdAt"))
            if (
                creator_window is not None
                and created is not None
                and (entry or {}).get("type") == "STANDARD"
                and abs(created - creator_window) <= _CREATOR_ENTRY_WINDOW_S
            ):
                # `bootstrapClusterCreatorAdminPermissions`: EKS grants whoever created the cluster, with it,
                # and associates the cluster-admin policy at cluster scope.
                creator_window = None
                self.view.read["aws:eks/accessEntry:AccessEntry"] += 1
                self._associations(name, principal, policies, associations | {(principal, _CREATOR_POLICY)})
                continue
            self._unexpected(
                self._live(
                    None,
                    "aws:eks/accessEntry:AccessEntry",
                    f"{name}:{principal}",
                    {
                        "clusterName": name,
                        "principalArn": principal,
                        "type": (entry or {}).get("type"),
                        "kubernetesGroups": (entry or {}).get("kubernetesGroups"),
                        "accessPolicies": sorted(p.get("policyArn", "") for p in policies or []) or None,
                    },
                ),
                f"an access entry of {name} that the declaration does not grant",
            )

    def _declared_associations(self) -> set[tuple[str, str]]:
        """(principal ARN, policy ARN) of every declared access policy association, as live values."""
        out: set[tuple[str, str]] = set()
        for resource in self.declared.of_type("aws:eks/accessPolicyAssociation:AccessPolicyAssociation"):
            principal = resource.props.get("principalArn")
            principal = self._live_ref(principal) or principal
            out.add((str(principal), str(resource.props.get("policyArn"))))
        return out

    def _associations(self, cluster: Any, principal: str, policies: Any, expected: set[tuple[str, str]]) -> None:
        """Access policies associated with an entry that is EKS's or declared: any other is unexpected."""
        if not isinstance(policies, list):
            return  # unreadable: the read error is reported
        for policy in policies:
            arn = policy.get("policyArn", "")
            scope = policy.get("accessScope") or {}
            if (principal, arn) in expected:
                self.view.read["aws:eks/accessPolicyAssociation:AccessPolicyAssociation"] += 1
                continue
            self._unexpected(
                self._live(
                    None,
                    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
                    f"{cluster}#{principal}#{arn}",
                    {
                        "clusterName": cluster,
                        "principalArn": principal,
                        "policyArn": arn,
                        "accessScope": {"type": scope.get("type"), "namespaces": scope.get("namespaces") or None},
                    },
                ),
                f"an access policy associated with {principal.rsplit('/', 1)[-1]} in {cluster} "
                "that neither EKS nor the declaration associates",
            )

    # -- logs --------------------------------------------------------------------------------

    def _logs(self) -> None:
        for resource in self.declared.of_type("aws:cloudwatch/logGroup:LogGroup"):
            group = self.inv.log_groups.get(str(resource.props.get("name")))
            if group is UNREADABLE:
                self._unreadable([resource], "logs:DescribeLogGroups failed")
            elif group:
                arn = group.get("arn", "").removesuffix(":*")
                tagged = self.inv.tagged if self.inv.tagged is not UNREADABLE else {}
                self._live(
                    resource,
                    resource.type,
                    group["logGroupName"],
                    {
                        "name": group["logGroupName"],
                        "retentionInDays": group.get("retentionInDays"),
                        "kmsKeyId": group.get("kmsKeyId"),
                        "tags": tagged.get(arn, UNREADABLE) if self.inv.tagged is not UNREADABLE else UNREADABLE,
                    },
                    {"arn": arn},
                )


def build_live_view(declared: DeclaredPlatform, collector: Collector) -> AwsLiveView:
    return ViewBuilder(declared, collector).build()
