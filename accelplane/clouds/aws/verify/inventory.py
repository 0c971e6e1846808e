"""Read the live platform: the fewest read-only calls that answer every check, in parallel.

How the declared platform is found live (names of autonamed resources differ between the offline
engine and AWS, so tags and deterministic names do the matching):

List calls (paginated, largest pages), each answering for every resource of its kind:

- `sts:GetCallerIdentity`: the account (checked first; no credentials is a usage error);
- `eks:DescribeCluster` (name = the declared cluster name) and `eks:ListNodegroups`;
- `ec2:DescribeVpcs`, `DescribeSubnets`, `DescribeSecurityGroups`, `DescribeLaunchTemplates`,
  `DescribePlacementGroups`, all filtered on `tag:accelplane:platform`;
- `ec2:DescribeSecurityGroupRules` with a `group-id` filter naming every platform group at once;
- `ec2:DescribeLaunchTemplateVersions` for `$Latest` and `$Default` of every template at once
  (AWS allows this only without a template id; ours are kept);
- `tag:GetResources` on the platform tag for buckets, KMS keys, load balancers, target groups and
  log groups (their ARNs and tags: no per-resource tag call);
- `kms:ListAliases`; `elbv2:DescribeLoadBalancers` / `DescribeTargetGroups` by ARN (20 a call);
  `elbv2:DescribeTags` for listeners and listener rules (20 a call);
- `secretsmanager:ListSecrets` with tag filters, including secrets scheduled for deletion: KMS
  key, rotation and version stages come with it (values are never read);
- `iam:GetAccountAuthorizationDetails` (Role filter: trust, inline and attached policies, tags)
  and `iam:ListRoles` (maximum session duration); `iam:ListOpenIDConnectProviders` (the ARN holds
  the cluster's issuer);
- `logs:DescribeLogGroups` with the declared name as prefix;
- per function a declared Lambda permission names (a secret's rotation function): `lambda:GetPolicy`;
- per declared CloudTrail trail (its name is deterministic): `cloudtrail:GetTrail`, `GetTrailStatus`
  (logging or stopped, the last delivery and its error), `GetEventSelectors` and `ListTags`;
- `eks:ListAccessEntries` and `eks:ListAddons` of the cluster (what was granted or installed by hand:
  the program declares the access it needs, EKS adds the node roles' entries), and
  `eks:ListAssociatedAccessPolicies` per access entry (what each entry may do);
- `elbv2:DescribeTargetGroups` by load balancer: every target group bound to the platform's load
  balancer, tagged or not.

Followed by reference, not by tag (AWS creates some of the platform's resources itself, untagged):
once the chains above have run, every security group a read resource refers to and that the tag
filter did not return (the EKS cluster security group EKS attaches to every node, the cluster's
additional groups, the groups each launch template version attaches, the load balancer's groups, a
node group's remote-access group) is read with `ec2:DescribeSecurityGroups` and
`DescribeSecurityGroupRules` filtered on `group-id` (two calls, whatever their number).

Per-resource reads, only where no list call answers: `eks:DescribeNodegroup` (EKS has no batch
describe); S3 versioning, encryption, public-access block, ownership, policy, lifecycle and Object Lock
configuration per bucket; `kms:DescribeKey`, `GetKeyRotationStatus`, `GetKeyPolicy` per key; load balancer and
target group attributes, listeners and target health; `wafv2:GetWebACLForResource` per load balancer
where a web ACL is declared (the one attached, with its rules: the endpoint's rate limits);
`elbv2:DescribeRules` per listener (the listener rules, with their forward actions and target group
weights); `secretsmanager:GetResourcePolicy` per secret; `iam:GetOpenIDConnectProvider`; a launch
template version a node group pins that is neither `$Latest` nor `$Default`; `ec2:DescribeVpcAttribute`
(DNS support and hostnames) per VPC;
`eks:DescribeAccessEntry` for an access entry that is not a declared node role's (to tell the
cluster creator's entry, made with the cluster, from one granted later).

A call that fails (access denied, throttled past all retries, a timeout, TLS, an answer that is not
the AWS API's) is recorded as a read error, its message one bounded line; the resources it would
have shown are reported as not verified, never as missing or as passing. Anything else a call or a
chain raises (botocore's parsers raise `KeyError` on XML of the wrong shape) is recorded the same
way: a check that could not read fails the run (exit 1), it never ends it with a traceback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from botocore.exceptions import ClientError

from accelplane.clouds.aws.clients import AwsClients, ReadOnlyError, UnreadableAnswerError, describe_error
from accelplane.clouds.aws.verify.inventory_audit import read_function_policies, read_trails
from accelplane.clouds.aws.verify.live_inventory import (
    UNREADABLE,
    BucketState,
    LiveInventory,
    ReadError,
    tags_of,
)
from accelplane.verify.declared import DeclaredPlatform

PLATFORM_TAG = "accelplane:platform"
WEB_ACL = "aws:wafv2/webAcl:WebAcl"


_NOT_FOUND = frozenset(
    {
        "ResourceNotFoundException",
        "NoSuchEntity",
        "NoSuchBucket",
        "NoSuchBucketPolicy",
        "NoSuchPublicAccessBlockConfiguration",
        "ServerSideEncryptionConfigurationNotFoundError",
        "OwnershipControlsNotFoundError",
        "NoSuchLifecycleConfiguration",
        "NotFoundException",
        "LoadBalancerNotFound",
        "TargetGroupNotFound",
        "ListenerNotFound",
        "TrailNotFoundException",
        "ObjectLockConfigurationNotFoundError",
        "InvalidLaunchTemplateId.NotFound",
        "InvalidLaunchTemplateId.VersionNotFound",
    }
)
NOT_FOUND: Any = None
# The largest page each list call allows (botocore maps PageSize to MaxResults/Limit/MaxItems).
_PAGE_SIZE = {
    "describe_vpcs": 1000,
    "describe_subnets": 1000,
    "describe_security_groups": 1000,
    "describe_security_group_rules": 1000,
    "describe_launch_templates": 200,
    "describe_launch_template_versions": 200,
    "list_nodegroups": 100,
    "get_resources": 100,
    "list_aliases": 100,
    "list_secrets": 100,
    "get_account_authorization_details": 1000,
    "list_roles": 1000,
    "describe_log_groups": 50,
    "describe_listeners": 400,
    "describe_rules": 400,
    "describe_target_groups": 400,
    "list_addons": 100,
    "list_access_entries": 100,
    "list_associated_access_policies": 100,
}


# A JSON answer cut short is transient (a connection dropped mid-body): the call is made again this
# many times in all before it is a read error.
UNREADABLE_ATTEMPTS = 3


def _retried_unreadable(read: Callable[[], Any]) -> Any:
    """`read()`, made again while AWS's answer is unreadable (`UnreadableAnswerError`), at most
    `UNREADABLE_ATTEMPTS` times; the last failure is raised with the number of attempts."""
    for attempt in range(1, UNREADABLE_ATTEMPTS + 1):
        try:
            return read()
        except UnreadableAnswerError as error:
            if attempt == UNREADABLE_ATTEMPTS:
                error.kwargs["what"] = f"{error.kwargs['what']} (after {attempt} attempts)"
                raise UnreadableAnswerError(**error.kwargs) from None
    raise AssertionError("unreachable")


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class Collector:
    """Fetches an `LiveInventory`; service chains run in parallel, per-resource calls fan out."""

    def __init__(self, clients: AwsClients, declared: DeclaredPlatform, *, concurrency: int = 8) -> None:
        self.clients = clients
        self.declared = declared
        self.platform = declared.platform
        self.concurrency = max(1, concurrency)
        self.inventory = LiveInventory()
        self._lock = threading.Lock()
        self._fanout: ThreadPoolExecutor | None = None

    # -- plumbing ------------------------------------------------------------------------------

    def _error(self, operation: str, resource: str, error: Exception) -> None:
        code, message = describe_error(error)
        with self._lock:
            self.inventory.errors.append(ReadError(operation, resource, code, message))

    def _name(self, service: str, operation: str) -> str:
        client = self.clients(service)
        return f"{client.meta.service_model.service_name}.{client.meta.method_to_api_mapping.get(operation, operation)}"

    def call(self, service: str, operation: str, resource: str, **kwargs: Any) -> Any:
        """One call; `NOT_FOUND` (None) for a not-found error, `UNREADABLE` for any other failure."""
        try:
            return _retried_unreadable(lambda: getattr(self.clients(service), operation)(**kwargs))
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_FOUND:
                return NOT_FOUND
            self._error(self._name(service, operation), resource, error)
        except ReadOnlyError:
            raise
        except Exception as error:  # BotoCoreError, ResponseParserError, a parser's KeyError: see the docstring
            self._error(self._name(service, operation), resource, error)
        return UNREADABLE

    def pages(self, service: str, operation: str, key: str, resource: str, **kwargs: Any) -> Any:
        """All items of a paginated list call, or `UNREADABLE`. Pages are the API's largest (fewer
        calls; and moto truncates some lists at the default page size without a next token)."""
        client = self.clients(service)
        items: list[Any] = []
        def read_all() -> list[Any]:
            found: list[Any] = []
            if client.can_paginate(operation):
                config = {"PageSize": _PAGE_SIZE[operation]} if operation in _PAGE_SIZE else {}
                for page in client.get_paginator(operation).paginate(**kwargs, PaginationConfig=config):
                    found.extend(page.get(key, []))
            else:
                found.extend(getattr(client, operation)(**kwargs).get(key, []))
            return found

        try:
            items.extend(_retried_unreadable(read_all))
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_FOUND:
                return []
            self._error(self._name(service, operation), resource, error)
            return UNREADABLE
        except ReadOnlyError:
            raise
        except Exception as error:  # BotoCoreError, ResponseParserError, a parser's KeyError: see the docstring
            self._error(self._name(service, operation), resource, error)
            return UNREADABLE
        return items

    def fan_out(self, tasks: Iterable[Callable[[], None]]) -> None:
        assert self._fanout is not None
        futures: list[Future[None]] = [self._fanout.submit(task) for task in tasks]
        for future in futures:
            future.result()

    def _tag_filter(self) -> list[dict[str, Any]]:
        return [{"Name": f"tag:{PLATFORM_TAG}", "Values": [self.platform.name]}]

    def _declares(self, type_token: str) -> bool:
        return bool(self.declared.of_type(type_token))

    # -- the run -----------------------------------------------------------------------------

    def collect(self) -> LiveInventory:
        chains = (self._eks, self._network, self._launch_templates, self._tagged, self._secrets, self._iam, self._logs,
                  self._trails, self._function_policies)
        with (
            ThreadPoolExecutor(self.concurrency, thread_name_prefix="verify-call") as fanout,
            ThreadPoolExecutor(len(chains), thread_name_prefix="verify-chain") as chain_pool,
        ):
            self._fanout = fanout
            for future in [chain_pool.submit(self._guarded, chain) for chain in chains]:
                future.result()
            # After the chains: the references are known only once the cluster, the launch templates
            # and the load balancers are read.
            self._guarded(self._referenced_groups)
        self._fanout = None
        return self.inventory

    def _guarded(self, chain: Callable[[], None]) -> None:
        """Run one chain; what it raises (an answer of an unexpected shape) is a read error of it."""
        try:
            chain()
        except ReadOnlyError:
            raise
        except Exception as error:
            self._error(f"reading {chain.__name__.strip('_')}", "the live platform", error)

    def _eks(self) -> None:
        inv = self.inventory
        clusters = self.declared.of_type("aws:eks/cluster:Cluster")
        if not clusters:
            return
        name = clusters[0].props.get("name") or self.platform.name
        response = self.call("eks", "describe_cluster", name, name=name)
        inv.cluster = response["cluster"] if response else response
        if inv.cluster is NOT_FOUND:
            return  # no cluster, no node groups (and AWS would answer ResourceNotFoundException)
        names = self.pages("eks", "list_nodegroups", "nodegroups", name, clusterName=name)
        inv.nodegroup_names = names

        def describe(group: str) -> Callable[[], None]:
            def run() -> None:
                found = self.call("eks", "describe_nodegroup", f"{name}/{group}", clusterName=name, nodegroupName=group)
                with self._lock:
                    inv.nodegroups[group] = found["nodegroup"] if found else found

            return run

        # The OIDC provider is found by the cluster's issuer, not through its node groups: read it
        # whether or not the node groups could be.
        tasks: list[Callable[[], None]] = [] if names is UNREADABLE else [describe(group) for group in names]
        if self._declares("aws:iam/openIdConnectProvider:OpenIdConnectProvider"):
            tasks.append(self._oidc)
        self.fan_out(tasks)
        if names is UNREADABLE:
            return
        access = clusters[0].props.get("accessConfig") or {}
        if access.get("authenticationMode") != "CONFIG_MAP":  # access entries exist in API modes only
            self._access(name)

    def _access(self, cluster: str) -> None:
        """Access entries and managed add-ons: EKS grants and installs these on request, outside
        the cluster's own settings, so nothing else shows one made by hand."""
        inv = self.inventory
        inv.addons = self.pages("eks", "list_addons", "addons", cluster, clusterName=cluster)
        principals = self.pages("eks", "list_access_entries", "accessEntries", cluster, clusterName=cluster)
        if principals is UNREADABLE:
            inv.access_entries = UNREADABLE
            return
        node_roles = {str(group.get("nodeRole")) for group in inv.nodegroups.values() if group}
        entries: dict[str, Any] = {principal: {} for principal in principals}

        def describe(principal: str) -> Callable[[], None]:
            def run() -> None:
                found = self.call(
                    "eks", "describe_access_entry", principal, clusterName=cluster, principalArn=principal
                )
                entries[principal] = found["accessEntry"] if found else found

            return run

        # A node role's entry is EKS's own (one per managed node group role): no need to describe it.
        self.fan_out(describe(principal) for principal in sorted(entries) if principal not in node_roles)
        inv.access_entries = entries

        def policies(principal: str) -> Callable[[], None]:
            def run() -> None:
                found = self.pages(
                    "eks",
                    "list_associated_access_policies",
                    "associatedAccessPolicies",
                    principal,
                    clusterName=cluster,
                    principalArn=principal,
                )
                with self._lock:
                    inv.access_policies[principal] = found

            return run

        # What each entry may do: a cluster-admin policy associated with a node role's entry by hand
        # shows nowhere else.
        self.fan_out(policies(principal) for principal in sorted(entries))

    def _oidc(self) -> None:
        cluster = self.inventory.cluster
        if cluster is UNREADABLE:
            self.inventory.oidc_providers = UNREADABLE  # found by the cluster's issuer, which could not be read
            return
        issuer = ((cluster or {}).get("identity") or {}).get("oidc", {}).get("issuer", "") if cluster else ""
        host = issuer.removeprefix("https://")
        providers = self.pages("iam", "list_open_id_connect_providers", "OpenIDConnectProviderList", "oidc")
        if providers is UNREADABLE:
            self.inventory.oidc_providers = UNREADABLE
            return
        if not host:
            return
        for provider in providers:
            arn = provider["Arn"]
            if arn.endswith(f"oidc-provider/{host}"):
                found = self.call("iam", "get_open_id_connect_provider", arn, OpenIDConnectProviderArn=arn)
                if found is UNREADABLE:
                    self.inventory.oidc_providers = UNREADABLE  # listed, not read: not verified, not missing
                    return
                if found is not None:
                    self.inventory.oidc_providers[arn] = found

    def _network(self) -> None:
        inv = self.inventory
        filters = self._tag_filter()
        inv.vpcs = self.pages("ec2", "describe_vpcs", "Vpcs", "vpcs", Filters=filters)
        if inv.vpcs is not UNREADABLE:
            self.fan_out(
                self._vpc_attribute(vpc["VpcId"], attribute)
                for vpc in inv.vpcs
                for attribute in ("enableDnsSupport", "enableDnsHostnames")
            )
        inv.subnets = self.pages("ec2", "describe_subnets", "Subnets", "subnets", Filters=filters)
        if self._declares("aws:ec2/placementGroup:PlacementGroup"):
            inv.placement_groups = self.pages(
                "ec2", "describe_placement_groups", "PlacementGroups", "placement groups", Filters=filters
            )
        groups = self.pages("ec2", "describe_security_groups", "SecurityGroups", "security groups", Filters=filters)
        if groups is UNREADABLE:
            inv.security_groups = inv.security_group_rules = UNREADABLE
            return
        inv.security_groups = {group["GroupId"]: group for group in groups}
        rules: list[dict[str, Any]] = []
        for chunk in _chunks(sorted(inv.security_groups), 200):
            found = self.pages(
                "ec2",
                "describe_security_group_rules",
                "SecurityGroupRules",
                "security group rules",
                Filters=[{"Name": "group-id", "Values": chunk}],
            )
            if found is UNREADABLE:
                inv.security_group_rules = UNREADABLE
                return
            rules.extend(found)
        inv.security_group_rules = rules

    def _vpc_attribute(self, vpc_id: str, attribute: str) -> Callable[[], None]:
        """One VPC attribute (DescribeVpcs does not report DNS support or hostnames)."""

        def run() -> None:
            found = self.call("ec2", "describe_vpc_attribute", vpc_id, VpcId=vpc_id, Attribute=attribute)
            value = (found.get(attribute[0].upper() + attribute[1:]) or {}).get("Value") if found else found
            with self._lock:
                self.inventory.vpc_attributes.setdefault(vpc_id, {})[attribute] = value

        return run

    def _referenced_groups(self) -> None:
        """Security groups the platform's resources attach that the tag filter did not return."""
        inv = self.inventory
        if inv.security_groups is UNREADABLE:
            return
        references: dict[str, list[str]] = {}

        def refer(group_id: Any, by: str) -> None:
            if isinstance(group_id, str) and group_id and group_id not in inv.security_groups:
                references.setdefault(group_id, [])
                if by not in references[group_id]:
                    references[group_id].append(by)

        cluster = inv.cluster if isinstance(inv.cluster, dict) else {}
        vpc_config = cluster.get("resourcesVpcConfig") or {}
        inv.cluster_security_group = vpc_config.get("clusterSecurityGroupId")
        name = cluster.get("name", "")
        refer(inv.cluster_security_group, f"the EKS cluster security group of {name} (created by EKS)")
        for group_id in vpc_config.get("securityGroupIds") or []:
            refer(group_id, f"the control plane of {name}")
        for group in inv.nodegroups.values():
            remote = ((group or {}).get("resources") or {}).get("remoteAccessSecurityGroup")
            refer(remote, f"node group {(group or {}).get('nodegroupName')} (remote access)")
        templates = inv.launch_templates if isinstance(inv.launch_templates, dict) else {}
        for (template_id, version), item in sorted(inv.launch_template_versions.items()):
            data = item.get("LaunchTemplateData") or {}
            template = templates.get(template_id, {}).get("LaunchTemplateName", template_id)
            attached = [*data.get("SecurityGroupIds", []), *data.get("SecurityGroups", [])]
            attached += [g for interface in data.get("NetworkInterfaces", []) for g in interface.get("Groups", [])]
            for group_id in attached:
                refer(group_id, f"launch template {template} version {version}")
        for lb in inv.load_balancers.values():
            for group_id in lb.get("SecurityGroups") or []:
                refer(group_id, f"load balancer {lb.get('LoadBalancerName')}")
        if not references:
            return
        ids = sorted(references)
        groups = self.pages(
            "ec2",
            "describe_security_groups",
            "SecurityGroups",
            "referenced security groups",
            Filters=[{"Name": "group-id", "Values": ids}],
        )
        rules = self.pages(
            "ec2",
            "describe_security_group_rules",
            "SecurityGroupRules",
            "referenced security group rules",
            Filters=[{"Name": "group-id", "Values": ids}],
        )
        if groups is UNREADABLE or rules is UNREADABLE or inv.security_group_rules is UNREADABLE:
            inv.referenced_groups = {group_id: [*by, "(not read)"] for group_id, by in references.items()}
            return
        for group in groups:
            inv.security_groups[group["GroupId"]] = group
            inv.referenced_groups[group["GroupId"]] = references[group["GroupId"]]
        inv.security_group_rules.extend(rules)

    def _launch_templates(self) -> None:
        inv = self.inventory
        if not self._declares("aws:ec2/launchTemplate:LaunchTemplate"):
            return
        templates = self.pages(
            "ec2", "describe_launch_templates", "LaunchTemplates", "launch templates", Filters=self._tag_filter()
        )
        if templates is UNREADABLE:
            inv.launch_templates = UNREADABLE
            return
        inv.launch_templates = {t["LaunchTemplateId"]: t for t in templates}
        if not templates:
            return
        # $Latest and $Default of every template in the account in one paginated call (AWS allows it
        # only without a template id); keep ours. The program sets the default to the latest.
        versions = self.pages(
            "ec2",
            "describe_launch_template_versions",
            "LaunchTemplateVersions",
            "launch template versions",
            Versions=["$Latest", "$Default"],
        )
        if versions is UNREADABLE:
            versions = []
        for version in versions:
            if version["LaunchTemplateId"] in inv.launch_templates:
                inv.launch_template_versions[(version["LaunchTemplateId"], str(version["VersionNumber"]))] = version

    def launch_template_version(self, template_id: str, version: str) -> Any:
        """A pinned version not among `$Latest`/`$Default` (after `collect`; one targeted call)."""
        key = (template_id, version)
        if key not in self.inventory.launch_template_versions:
            found = self.call(
                "ec2",
                "describe_launch_template_versions",
                f"{template_id}:{version}",
                LaunchTemplateId=template_id,
                Versions=[version],
            )
            if found:
                for item in found.get("LaunchTemplateVersions", []):
                    self.inventory.launch_template_versions[key] = item
            else:
                return found
        return self.inventory.launch_template_versions.get(key)

    def _tagged(self) -> None:
        inv = self.inventory
        mappings = self.pages(
            "resourcegroupstaggingapi",
            "get_resources",
            "ResourceTagMappingList",
            "tagged resources",
            TagFilters=[{"Key": PLATFORM_TAG, "Values": [self.platform.name]}],
            ResourceTypeFilters=[
                "s3",
                "kms",
                "elasticloadbalancing:loadbalancer",
                "elasticloadbalancing:targetgroup",
                "logs",  # log groups (AWS calls the type logs:log-group; a service filter matches either way)
            ],
        )
        if mappings is UNREADABLE:
            inv.tagged = UNREADABLE
            return
        inv.tagged = {m["ResourceARN"]: tags_of(m.get("Tags")) for m in mappings}
        tasks: list[Callable[[], None]] = []
        tasks += self._bucket_tasks()
        tasks += self._kms_tasks()
        self.fan_out(tasks)
        self._elb()

    # -- S3 ----------------------------------------------------------------------------------

    def _bucket_tasks(self) -> list[Callable[[], None]]:
        inv = self.inventory
        buckets = {arn.split(":::", 1)[1]: tags for arn, tags in inv.tagged.items() if ":s3:::" in arn}
        tasks: list[Callable[[], None]] = []
        reads = (
            ("versioning", "get_bucket_versioning", None),
            ("encryption", "get_bucket_encryption", "ServerSideEncryptionConfiguration"),
            ("public_access_block", "get_public_access_block", "PublicAccessBlockConfiguration"),
            ("ownership", "get_bucket_ownership_controls", "OwnershipControls"),
            ("policy", "get_bucket_policy", "Policy"),
            ("lifecycle", "get_bucket_lifecycle_configuration", "Rules"),
            ("object_lock", "get_object_lock_configuration", "ObjectLockConfiguration"),
        )
        for name, tags in sorted(buckets.items()):
            state = BucketState(name=name, tags=tags)
            inv.buckets[name] = state
            for attribute, operation, key in reads:
                tasks.append(self._bucket_read(state, attribute, operation, key))
        return tasks

    def _bucket_read(self, state: BucketState, attribute: str, operation: str, key: str | None) -> Callable[[], None]:
        def run() -> None:
            found = self.call("s3", operation, state.name, Bucket=state.name)
            if found and key is not None:
                found = found.get(key)
            elif found:
                found = {k: v for k, v in found.items() if k != "ResponseMetadata"}
            setattr(state, attribute, found)

        return run

    # -- KMS ---------------------------------------------------------------------------------

    def _kms_tasks(self) -> list[Callable[[], None]]:
        inv = self.inventory
        if not self._declares("aws:kms/key:Key"):
            return []
        aliases = self.pages("kms", "list_aliases", "Aliases", "aliases")
        if aliases is UNREADABLE:
            inv.kms_aliases = UNREADABLE
            return []
        inv.kms_aliases = {alias["AliasName"]: alias for alias in aliases}
        declared_aliases = {a.props.get("name") for a in self.declared.of_type("aws:kms/alias:Alias")}
        key_ids = {
            alias["TargetKeyId"]
            for name, alias in inv.kms_aliases.items()
            if name in declared_aliases and alias.get("TargetKeyId")
        }
        tagged_keys = {arn.rsplit("/", 1)[1]: tags for arn, tags in inv.tagged.items() if ":kms:" in arn}
        key_ids |= set(tagged_keys)
        tasks: list[Callable[[], None]] = []
        for key_id in sorted(key_ids):
            entry: dict[str, Any] = {"tags": tagged_keys.get(key_id, {})}
            inv.kms_keys[key_id] = entry
            tasks.append(self._kms_read(entry, "metadata", "describe_key", key_id, "KeyMetadata", {}))
            tasks.append(self._kms_read(entry, "rotation", "get_key_rotation_status", key_id, None, {}))
            tasks.append(self._kms_read(entry, "policy", "get_key_policy", key_id, "Policy", {"PolicyName": "default"}))
        return tasks

    def _kms_read(
        self,
        entry: dict[str, Any],
        attribute: str,
        operation: str,
        key_id: str,
        key: str | None,
        extra: dict[str, Any],
    ) -> Callable[[], None]:
        def run() -> None:
            found = self.call("kms", operation, key_id, KeyId=key_id, **extra)
            if found and key is not None:
                found = found.get(key)
            entry[attribute] = found

        return run

    # -- ELB ---------------------------------------------------------------------------------

    def _describe_elb(self) -> None:
        """The load balancers and target groups the tagging API found, described (20 per call); a
        failed describe leaves its kind unread (`elb_unread`), so nothing of it reads as missing."""
        inv = self.inventory
        lb_arns = sorted(a for a in inv.tagged if ":loadbalancer/" in a)
        tg_arns = sorted(a for a in inv.tagged if ":targetgroup/" in a)
        for arn in lb_arns + tg_arns:
            inv.elb_tags[arn] = inv.tagged[arn]
        for chunk in _chunks(lb_arns, 20):
            found = self.pages(
                "elbv2", "describe_load_balancers", "LoadBalancers", "load balancers", LoadBalancerArns=chunk
            )
            if found is UNREADABLE:
                inv.elb_unread.add("load balancers")  # not found is not "missing": nothing was read
            for lb in found or []:
                inv.load_balancers[lb["LoadBalancerArn"]] = lb
        for chunk in _chunks(tg_arns, 20):
            found = self.pages(
                "elbv2", "describe_target_groups", "TargetGroups", "target groups", TargetGroupArns=chunk
            )
            if found is UNREADABLE:
                inv.elb_unread.add("target groups")
            for tg in found or []:
                inv.target_groups[tg["TargetGroupArn"]] = tg

    def _elb(self) -> None:
        inv = self.inventory
        self._describe_elb()

        def lb_reads(arn: str) -> list[Callable[[], None]]:
            def bound() -> None:
                # Every target group bound to the load balancer, tagged or not: one made by hand and
                # put behind a listener rule carries none of the platform's tags.
                inv.bound_target_groups[arn] = self.pages(
                    "elbv2", "describe_target_groups", "TargetGroups", arn, LoadBalancerArn=arn
                )

            def attributes() -> None:
                found = self.call("elbv2", "describe_load_balancer_attributes", arn, LoadBalancerArn=arn)
                inv.lb_attributes[arn] = {a["Key"]: a["Value"] for a in found["Attributes"]} if found else found

            def listeners() -> None:
                inv.listeners[arn] = self.pages("elbv2", "describe_listeners", "Listeners", arn, LoadBalancerArn=arn)

            def firewall() -> None:
                # The web ACL guarding the endpoint, with its rules: the rate limits must be there,
                # enforcing, and attached to this load balancer.
                found = self.call("wafv2", "get_web_acl_for_resource", arn, ResourceArn=arn)
                inv.web_acls[arn] = found.get("WebACL") if found else found

            # The web ACL is read only where one is declared: a stack without rate limits makes no wafv2 call.
            return [attributes, listeners, bound, *([firewall] if self._declares(WEB_ACL) else [])]

        def tg_reads(arn: str) -> list[Callable[[], None]]:
            def attributes() -> None:
                found = self.call("elbv2", "describe_target_group_attributes", arn, TargetGroupArn=arn)
                inv.tg_attributes[arn] = {a["Key"]: a["Value"] for a in found["Attributes"]} if found else found

            def health() -> None:
                found = self.call("elbv2", "describe_target_health", arn, TargetGroupArn=arn)
                inv.target_health[arn] = found["TargetHealthDescriptions"] if found else found

            return [attributes, health]

        tasks = [task for arn in inv.load_balancers for task in lb_reads(arn)]
        tasks += [task for arn in inv.target_groups for task in tg_reads(arn)]
        self.fan_out(tasks)
        listener_arns = sorted(
            listener["ListenerArn"] for found in inv.listeners.values() if found for listener in found
        )

        def rules(arn: str) -> Callable[[], None]:
            def run() -> None:
                inv.listener_rules[arn] = self.pages("elbv2", "describe_rules", "Rules", arn, ListenerArn=arn)

            return run

        self.fan_out(rules(arn) for arn in listener_arns)
        rule_arns = sorted(
            rule["RuleArn"]
            for found in inv.listener_rules.values()
            if found
            for rule in found
            if not rule.get("IsDefault")  # the default rule is the listener's default action: no tags of its own
        )
        for chunk in _chunks(listener_arns + rule_arns, 20):
            found = self.call("elbv2", "describe_tags", "listeners and rules", ResourceArns=chunk)
            for description in (found or {}).get("TagDescriptions", []):
                inv.elb_tags[description["ResourceArn"]] = tags_of(description.get("Tags"))

    # -- Secrets Manager ---------------------------------------------------------------------

    def _secrets(self) -> None:
        inv = self.inventory
        if not self._declares("aws:secretsmanager/secret:Secret"):
            return
        found = self.pages(
            "secretsmanager",
            "list_secrets",
            "SecretList",
            "secrets",
            Filters=[
                {"Key": "tag-key", "Values": [PLATFORM_TAG]},
                {"Key": "tag-value", "Values": [self.platform.name]},
            ],
            IncludePlannedDeletion=True,
        )
        if found is UNREADABLE:
            inv.secrets = UNREADABLE
            return
        inv.secrets = [s for s in found if tags_of(s.get("Tags")).get(PLATFORM_TAG) == self.platform.name]

        def policy(arn: str) -> Callable[[], None]:
            def run() -> None:
                response = self.call("secretsmanager", "get_resource_policy", arn, SecretId=arn)
                inv.secret_policies[arn] = response.get("ResourcePolicy") if response else response

            return run

        self.fan_out(policy(secret["ARN"]) for secret in inv.secrets if not secret.get("DeletedDate"))

    # -- IAM ---------------------------------------------------------------------------------

    def _iam(self) -> None:
        inv = self.inventory
        if not self._declares("aws:iam/role:Role"):
            return
        details = self.pages("iam", "get_account_authorization_details", "RoleDetailList", "roles", Filter=["Role"])
        listed = self.pages("iam", "list_roles", "Roles", "roles")
        if details is UNREADABLE:
            inv.roles = UNREADABLE
            return
        by_name = {role["RoleName"]: role for role in listed} if listed is not UNREADABLE else {}
        roles: dict[str, dict[str, Any]] = {}
        for detail in details:
            summary = by_name.get(detail["RoleName"], {})
            roles[detail["RoleName"]] = {
                **detail,
                "MaxSessionDuration": summary.get("MaxSessionDuration", UNREADABLE),
                "Description": summary.get("Description"),
            }
        inv.roles = roles

    # -- CloudWatch Logs ---------------------------------------------------------------------

    def _logs(self) -> None:
        for group in self.declared.of_type("aws:cloudwatch/logGroup:LogGroup"):
            name = group.props.get("name")
            if not isinstance(name, str):
                continue
            found = self.pages("logs", "describe_log_groups", "logGroups", name, logGroupNamePrefix=name)
            if found is UNREADABLE:
                self.inventory.log_groups[name] = UNREADABLE
                continue
            self.inventory.log_groups[name] = next((g for g in found if g["logGroupName"] == name), None)

    # -- CloudTrail and Lambda (the audit trail, a rotation function's policy) ----------------

    def _trails(self) -> None:
        read_trails(self)

    def _function_policies(self) -> None:
        read_function_policies(self)
