"""Checks of a declaration for AWS: the facts of AWS a stack must agree with before `pulumi up`.

Regions with an EKS endpoint, AWS's tag rules, the VPC shape (new or existing), EC2 instance types
with their accelerators, EFA and placement groups, S3 storage classes, ELB TLS policies, the
discounts and budgets AWS has — each against botocore's models and endpoint data
(`accelplane.clouds.aws.catalog`). Keys of other clouds never get here: `AwsPlatform` has none.
"""

from __future__ import annotations

import difflib
import ipaddress
import unicodedata
from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.aws import catalog as aws_catalog
from accelplane.clouds.aws.declaration import AwsNodePool, AwsPlatform
from accelplane.clouds.aws.node_vendors import node_facts
from accelplane.declaration import CapacityType, Purpose
from accelplane.declaration.storage import unknown_storage_classes
from accelplane.suggest import did_you_mean


def aws_problems(platform: AwsPlatform) -> Iterator[Issue]:
    yield from _region(platform)
    yield from _tags(platform)
    yield from _network(platform)
    yield from _pools(platform)
    yield from _buckets(platform)
    yield from _endpoint(platform)
    yield from _cost(platform)


# The most tags a component adds to the platform's own (a subnet: Name, the cluster's discovery
# tag and its load-balancer role); a test over the example stacks' graphs keeps this true.
COMPONENT_TAGS = 3
_TAG_PUNCTUATION = frozenset(" _.:/=+-@")
_MAX_TAG_PROBLEMS = 10


def _region(platform: AwsPlatform) -> Iterator[Issue]:
    known = aws_catalog.eks_regions()
    if any(platform.region in regions for regions in known.values()):
        return
    close = difflib.get_close_matches(platform.region, sorted(set().union(*known.values())), n=3, cutoff=0.7)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    yield ("region",), (f"unknown AWS region {platform.region!r}: EKS has no endpoint there "
                        f"(botocore's endpoint data){hint}")


def _tag_text_ok(text: str) -> bool:
    # AWS tag keys and values: letters, digits, white space and _ . : / = + - @ (any language).
    return all(ch.isalnum() or ch in _TAG_PUNCTUATION or unicodedata.category(ch).startswith("Z") for ch in text)


def _tags(platform: AwsPlatform) -> Iterator[Issue]:
    """AWS's tag rules, checked here rather than halfway through `pulumi up`: count per resource,
    key and value length and characters, and the reserved `aws:` prefix."""
    limits = aws_catalog.tag_limits()
    extra = platform.tags.extra
    room = limits["max_tags"] - COMPONENT_TAGS - (len(platform.resource_tags) - len(extra))
    if len(extra) > room:
        yield (("tags", "extra"), f"{len(extra)} tags, but AWS allows {limits['max_tags']} per resource and the "
               f"platform's own tags take {limits['max_tags'] - room}: at most {room} here")
        return  # judging tens of thousands of keys one by one helps nobody
    declared_at: dict[str, tuple[str | int, ...]] = {
        "accelplane:platform": ("name",), "accelplane:environment": ("environment",),
        "owner": ("tags", "owner"), "cost-centre": ("tags", "cost_centre"),
    }
    found = 0
    for key, value in platform.resource_tags.items():
        path = ("tags", "extra", key) if key in extra else declared_at.get(key, ("tags",))
        message = None
        if key.lower().startswith("aws:"):
            message = f"tag key {key!r}: the aws: prefix is reserved for AWS's own tags"
        elif len(key) > limits["max_key_length"]:
            message = f"tag key is {len(key)} characters long; AWS allows {limits['max_key_length']}"
        elif len(value) > limits["max_value_length"]:
            message = f"tag value of {key!r} is {len(value)} characters long; AWS allows {limits['max_value_length']}"
        elif not _tag_text_ok(key) or not _tag_text_ok(value):
            message = f"tag {key!r}: AWS allows letters, digits, spaces and _ . : / = + - @ only"
        if message:
            found += 1
            if found <= _MAX_TAG_PROBLEMS:
                yield path, message
    if found > _MAX_TAG_PROBLEMS:
        yield ("tags", "extra"), f"{found - _MAX_TAG_PROBLEMS} more tag problems like the ones above"


def _network(platform: AwsPlatform) -> Iterator[Issue]:
    if (platform.network.new_vpc is None) == (platform.network.existing_vpc is None):
        yield ("network",), "declare exactly one of new_vpc or existing_vpc"
        return
    vpc = platform.network.new_vpc
    if vpc is None:
        return
    network = ipaddress.ip_network(vpc.cidr)
    zones = len(vpc.availability_zones)
    for zone_index, zone in enumerate(vpc.availability_zones):
        if not zone.startswith(platform.region):
            yield (
                ("network", "new_vpc", "availability_zones", zone_index),
                f"zone {zone!r} is not in region {platform.region}",
            )
    seen: list[tuple[tuple[str | int, ...], ipaddress.IPv4Network | ipaddress.IPv6Network]] = []
    for kind in ("private_subnets", "public_subnets"):
        subnets = getattr(vpc, kind)
        if subnets and len(subnets) != zones:
            yield (
                ("network", "new_vpc", kind),
                f"expected one subnet per availability zone ({zones}), got {len(subnets)}",
            )
        for index, cidr in enumerate(subnets):
            path = ("network", "new_vpc", kind, index)
            subnet = ipaddress.ip_network(cidr)
            if subnet.version != network.version or not subnet.subnet_of(network):  # type: ignore[arg-type]
                yield path, f"{cidr} is outside the VPC {vpc.cidr}"
                continue
            for other_path, other in seen:
                if subnet.overlaps(other):
                    yield path, f"{cidr} overlaps {other} ({'.'.join(map(str, other_path))})"
            seen.append((path, subnet))


def _expected_model_tokens(accelerator: str) -> set[str]:
    return set(accelerator.lower().split("-")[1:])


def _pools(platform: AwsPlatform) -> Iterator[Issue]:
    instance_types = aws_catalog.ec2_instance_types()
    for index, pool in enumerate(platform.node_pools):
        base: tuple[str | int, ...] = ("node_pools", index)
        if pool.instance_type not in instance_types:
            yield (
                (*base, "instance_type"),
                f"instance type {pool.instance_type!r} does not exist in EC2"
                f"{did_you_mean(pool.instance_type, sorted(instance_types))} (botocore ec2 InstanceType)",
            )
            continue
        yield from _pool_instance_facts(pool, base)
        vendor = node_facts(pool.accelerator)
        architecture = aws_catalog.architecture(pool.instance_type)
        if vendor is None:
            yield (
                (*base, "accelerator"),
                f"EKS has no node image for {pool.accelerator}; run these hosts as a bare-metal host group",
            )
        elif architecture not in vendor.ami_types:
            yield (*base, "instance_type"), f"no EKS node image for {pool.accelerator or 'CPU'} on {architecture}"
        if pool.capacity.type is CapacityType.spot and pool.placement_group:
            yield (*base, "placement_group"), "spot capacity cannot be held in a cluster placement group"
        yield from _capacity_block(platform, pool, base)


def _capacity_block(platform: AwsPlatform, pool: AwsNodePool, base: tuple[str | int, ...]) -> Iterator[Issue]:
    """A pool buying a Capacity Block runs in the block's zone only and holds no node outside it."""
    block = pool.capacity.block
    if block is None:
        return
    where = (*base, "capacity", "block")
    vpc, existing = platform.network.new_vpc, platform.network.existing_vpc
    if not block.zone.startswith(platform.region):
        yield (*where, "zone"), f"zone {block.zone!r} is not in region {platform.region}"
    elif vpc is not None and block.zone not in vpc.availability_zones:
        yield (*where, "zone"), (f"the VPC has no subnet in {block.zone} (zones: {', '.join(vpc.availability_zones)}): "
                                 "the block's instances launch in its zone only")
    if existing is not None and block.subnet_id not in existing.private_subnet_ids:
        yield (*where, "subnet_id"), (f"name the private subnet in {block.zone} the nodes use, one of "
                                      f"{', '.join(existing.private_subnet_ids)}")
    if vpc is not None and block.subnet_id is not None:
        yield (*where, "subnet_id"), "subnet_id is for an existing VPC; a new VPC's subnet in the zone is used"
    if pool.scaling.min or pool.scaling.desired:
        yield (*base, "scaling"), ("a pool on a Capacity Block holds no node outside it: min and desired 0 "
                                   "(`accelplane capacity sync` sizes it while the block is active)")
    if pool.scaling.max > block.instances:
        yield (*base, "scaling", "max"), f"max {pool.scaling.max} is more than the block's {block.instances} instances"
    if pool.placement_group:
        yield (*base, "placement_group"), ("a Capacity Block's instances are placed by AWS (EC2 "
                                              "UltraClusters): drop the stack's placement group")


def _pool_instance_facts(pool: AwsNodePool, base: tuple[str | int, ...]) -> Iterator[Issue]:
    facts = aws_catalog.instance_facts(pool.instance_type)
    if facts is None:
        return
    if pool.efa and not facts.efa:
        yield (*base, "efa"), f"instance type {pool.instance_type} does not support EFA"
    if pool.placement_group:
        if "cluster" not in facts.placement_strategies:
            yield (*base, "placement_group"), f"{pool.instance_type} does not support cluster placement groups"
        if not (pool.efa and pool.purpose is Purpose.training):
            yield (*base, "placement_group"), "cluster placement groups are for EFA training pools (set efa: true)"
    if pool.accelerator:
        if not facts.accelerators:
            yield (
                (*base, "instance_type"),
                f"{pool.instance_type} has no accelerator, but the pool declares {pool.accelerator}",
            )
        elif not any(model.lower() in _expected_model_tokens(pool.accelerator) for _, model, _ in facts.accelerators):
            carried = ", ".join(f"{count} x {vendor} {model}" for vendor, model, count in facts.accelerators)
            yield (*base, "instance_type"), f"{pool.instance_type} carries {carried}, not {pool.accelerator}"


def _buckets(platform: AwsPlatform) -> Iterator[Issue]:
    classes = aws_catalog.s3_transition_storage_classes()
    yield from unknown_storage_classes(platform.buckets, classes, "S3 storage class")


def _endpoint(platform: AwsPlatform) -> Iterator[Issue]:
    endpoint = platform.inference_endpoint
    if endpoint is None:
        return
    policies = aws_catalog.elb_tls_policies()
    protocols = policies.get(endpoint.tls_policy)
    if protocols is None:
        yield (
            ("inference_endpoint", "tls_policy"),
            f"unknown ELB security policy {endpoint.tls_policy!r}; expected one of " + ", ".join(sorted(policies)),
        )
    elif {"TLSv1", "TLSv1.1"} & set(protocols):
        yield (
            ("inference_endpoint", "tls_policy"),
            f"{endpoint.tls_policy} allows {', '.join(protocols)}; expected a policy allowing TLS 1.2 or newer only",
        )
    if platform.network.new_vpc is not None and not platform.network.new_vpc.public_subnets:
        yield ("network", "new_vpc", "public_subnets"), "the inference endpoint needs public subnets for its ALB"
    if platform.network.existing_vpc is not None and not platform.network.existing_vpc.public_subnet_ids:
        yield ("network", "existing_vpc", "public_subnet_ids"), "the inference endpoint needs public subnets"


def _cost(platform: AwsPlatform) -> Iterator[Issue]:
    budget = platform.budget
    if budget is not None and budget.billing_account is not None:
        yield ("budget", "billing_account"), "billing_account is Google Cloud's; AWS budgets belong to the account"
    for index, pool in enumerate(platform.node_pools):
        discount = pool.capacity.discount
        if discount is not None and discount.kind.value != "savings_plan":
            yield (("node_pools", index, "capacity", "discount", "kind"),
                   f"{discount.kind.value} is not a discount of aws (savings_plan: AWS; committed_use: Google Cloud)")
