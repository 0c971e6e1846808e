"""What `Collector` read from AWS for one verify run (`LiveInventory`), and the markers a failed read
leaves: `UNREADABLE` where a call failed (its resources are not verified, never missing), `NOT_FOUND`
where AWS said the resource does not exist."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


class _Unreadable:
    """A value the API call for it failed to return (see `LiveInventory.errors`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unreadable>"

    def __bool__(self) -> bool:
        return False


UNREADABLE: Any = _Unreadable()


@dataclass(frozen=True)
class ReadError:
    operation: str
    resource: str
    code: str
    message: str


@dataclass
class BucketState:
    name: str
    tags: dict[str, str]
    versioning: Any = None
    encryption: Any = None
    public_access_block: Any = None
    ownership: Any = None
    policy: Any = None
    lifecycle: Any = None
    object_lock: Any = None


@dataclass
class LiveInventory:
    account: str | None = None
    cluster: Any = None
    nodegroups: dict[str, dict[str, Any]] = field(default_factory=dict)
    nodegroup_names: Any = None
    oidc_providers: Any = field(default_factory=dict)  # ARN -> provider, or UNREADABLE
    vpcs: Any = field(default_factory=list)
    subnets: Any = field(default_factory=list)
    placement_groups: Any = field(default_factory=list)
    security_groups: Any = field(default_factory=dict)
    security_group_rules: Any = field(default_factory=list)
    launch_templates: Any = field(default_factory=dict)
    launch_template_versions: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    tagged: Any = field(default_factory=dict)  # ARN -> tags, from the tagging API
    buckets: dict[str, BucketState] = field(default_factory=dict)
    load_balancers: dict[str, dict[str, Any]] = field(default_factory=dict)
    elb_unread: set[str] = field(default_factory=set)  # "load balancers", "target groups": a describe failed
    lb_attributes: dict[str, Any] = field(default_factory=dict)
    listeners: dict[str, Any] = field(default_factory=dict)  # LB ARN -> listeners
    listener_rules: dict[str, Any] = field(default_factory=dict)  # listener ARN -> its rules (default rule too)
    elb_tags: dict[str, dict[str, str]] = field(default_factory=dict)
    target_groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    tg_attributes: dict[str, Any] = field(default_factory=dict)
    target_health: dict[str, Any] = field(default_factory=dict)
    web_acls: dict[str, Any] = field(default_factory=dict)  # LB ARN -> its WAF web ACL (None: none attached)
    kms_aliases: Any = field(default_factory=dict)  # alias name -> alias
    kms_keys: dict[str, dict[str, Any]] = field(default_factory=dict)  # key id -> metadata/rotation/policy/tags
    secrets: Any = field(default_factory=list)
    secret_policies: dict[str, Any] = field(default_factory=dict)
    roles: Any = field(default_factory=dict)  # role name -> RoleDetail (+ MaxSessionDuration, Description)
    log_groups: dict[str, Any] = field(default_factory=dict)
    function_policies: dict[str, Any] = field(default_factory=dict)  # function ARN -> policy statements
    trails: dict[str, Any] = field(default_factory=dict)  # trail name -> trail, status, selectors, tags
    vpc_attributes: dict[str, dict[str, Any]] = field(default_factory=dict)  # VPC id -> attribute -> value
    # Security groups read because a read resource refers to them (not returned by the tag filter):
    # group id -> what refers to it ("the EKS cluster security group of acme-ml-dev", ...).
    referenced_groups: dict[str, list[str]] = field(default_factory=dict)
    cluster_security_group: str | None = None
    access_entries: Any = None  # principal ARN -> DescribeAccessEntry answer (or {} when not described)
    access_policies: dict[str, Any] = field(default_factory=dict)  # principal ARN -> associated access policies
    addons: Any = None  # add-on names
    bound_target_groups: dict[str, Any] = field(default_factory=dict)  # LB ARN -> its target groups
    errors: list[ReadError] = field(default_factory=list)


def tags_of(tag_list: Iterable[dict[str, Any]] | None) -> dict[str, str]:
    return {t.get("Key", t.get("TagKey", "")): t.get("Value", t.get("TagValue", "")) for t in tag_list or []}
