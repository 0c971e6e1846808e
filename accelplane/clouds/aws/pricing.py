"""What an AWS plan costs: EKS node groups (instance, spot range, reservation, gp3 root volume) and
the fixed-price services (cluster, NAT, public IPv4, ALB, KMS, Secrets Manager, WAF), S3 by usage;
and the plan's region, read from its subnets' zones. Priced from `prices.yaml` beside it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accelplane.clouds.aws.capacity_terms import TaggedTerms
from accelplane.clouds.aws.resource_types import CAPACITY_BLOCK as BLOCK
from accelplane.cost.cloud_pricing import CloudPricing
from accelplane.cost.plan_pricer import (
    DISCOUNT_LABEL,
    ONE,
    Discount,
    LineItem,
    Part,
    PlanPricer,
    as_int,
    bucket_item,
    node_floats,
    resource_inputs,
    resource_name,
)
from accelplane.node_labels import POOL_LABEL

NODE_DISK = "ebs_gp3_gb_month"  # a node group's root volume (gp3)
# A block's price is its offering's, declared with it (tag accelplane:capacity-upfront-usd): no price table row.
BLOCK_SOURCE = None


class AwsPricer(PlanPricer):
    def items(self) -> Iterable[LineItem]:
        templates = {str((r.get("outputs") or {}).get("id") or r.get("id") or ""): resource_inputs(r)
                     for r in self.each("aws:ec2/launchTemplate:LaunchTemplate")}
        for group in self.each("aws:eks/nodeGroup:NodeGroup"):
            yield self._node_group(group, templates)
        for block in self.each(BLOCK):
            yield self._block(block)
        simple = (
            ("aws:eks/cluster:Cluster", "EKS cluster", "eks_cluster_hour", "hour"),
            ("aws:ec2/natGateway:NatGateway", "NAT gateway", "nat_gateway_hour", "hour"),
            ("aws:ec2/eip:Eip", "public IPv4 address", "public_ipv4_hour", "hour"),
            ("aws:lb/loadBalancer:LoadBalancer", "load balancer", "alb_hour", "hour"),
            ("aws:kms/key:Key", "KMS key", "kms_key_month", "month"),
            ("aws:secretsmanager/secret:Secret", "secret", "secret_month", "month"),
        )
        for type_token, kind, key, unit in simple:
            for resource in self.each(type_token):
                yield LineItem(resource_name(resource), type_token, kind, (self.service(key, kind, ONE, unit),),
                               usage=self.usage_of(key))
        for acl in self.each("aws:wafv2/webAcl:WebAcl"):
            rules = float(len(resource_inputs(acl).get("rules") or []))
            yield LineItem(resource_name(acl), "aws:wafv2/webAcl:WebAcl", "WAF web ACL",
                           (self.service("waf_web_acl_month", "web ACL", ONE, "month"),
                            self.service("waf_rule_month", f"{int(rules)} rules", (rules, rules, rules), "month")),
                           usage=self.usage_of("waf_web_acl_month"))
        for bucket in self.each("aws:s3/bucket:Bucket"):
            yield bucket_item(bucket, "STANDARD", self.prices, "S3")

    def _node_group(self, group: Mapping[str, Any], templates: Mapping[str, Mapping[str, Any]]) -> LineItem:
        inputs = resource_inputs(group)
        scaling = inputs.get("scalingConfig") or {}
        nodes = (as_int(scaling.get("minSize")), as_int(scaling.get("desiredSize")), as_int(scaling.get("maxSize")))
        types = inputs.get("instanceTypes") or ["?"]
        machine = str(types[0])
        tags = inputs.get("tags") or {}
        template = templates.get(str((inputs.get("launchTemplate") or {}).get("id", "")), {})
        capacity_type = str(inputs.get("capacityType") or "ON_DEMAND")
        block = capacity_type == "CAPACITY_BLOCK"
        reserved = bool(template.get("capacityReservationSpecification")) or block
        spot = capacity_type == "SPOT"
        if block:
            # EKS takes a block's instance type from the launch template; the block's fee pays its hours.
            machine = str(template.get("instanceType") or machine)
            instance, spot_range = Part(f"{machine} (prepaid: the capacity block's fee is its own line)",
                                        node_floats(nodes), 0.0, "hour", BLOCK_SOURCE), None
        else:
            instance, spot_range = self.machine_part(machine, nodes, spot)
        disk = as_int(next((m.get("ebs", {}).get("volumeSize") for m in template.get("blockDeviceMappings") or []
                          if isinstance(m, Mapping)), 0))
        parts = [instance]
        if disk:
            row = self.prices.services.get(NODE_DISK)
            parts.append(Part(f"{disk} GiB gp3 root volume per node", tuple(n * disk for n in node_floats(nodes)),  # type: ignore[arg-type]
                              row.price if row else None, "month", row.source if row else None))
        note = None
        if block:
            note = "the capacity block's upfront fee pays for its instances, used or not (its own line)"
        elif reserved:
            note = ("a capacity reservation bills its whole size at the On-Demand rate whether or not nodes run; "
                    "this prices the pool's nodes only")
        return LineItem(resource_name(group), "aws:eks/nodeGroup:NodeGroup", "node pool", tuple(parts),
                        pool=str(tags.get(POOL_LABEL) or inputs.get("nodeGroupName") or resource_name(group)),
                        machine=machine, nodes=nodes,
                        pricing="spot" if spot else "reservation" if reserved else "on-demand",
                        discount=Discount.parse((inputs.get("labels") or {}).get(DISCOUNT_LABEL)),
                        spot_range=spot_range, note=note)

    def _block(self, block: Mapping[str, Any]) -> LineItem:
        """A bought Capacity Block: its upfront fee (a tag of the purchase) spread over the months it spans;
        a block within one month counts whole in it."""
        tags = resource_inputs(block).get("tags") or {}
        terms = TaggedTerms.of(tags)
        fee = terms.upfront_usd
        months = max(1.0, terms.hours / self.table.hours_per_month)
        share = round(fee / months, 2) if fee is not None else None
        what = f"capacity block {terms.dates()}, upfront fee" + (f" ${fee:,.2f} over {months:.2f} months"
                                                                if fee is not None and months > 1 else "")
        return LineItem(resource_name(block), BLOCK, "capacity block", (Part(what, ONE, share, "month", BLOCK_SOURCE),),
                        pool=str(tags.get(POOL_LABEL) or "") or None, pricing="reservation",
                        note="paid at purchase, whether or not nodes run; never refunded")


def plan_region(resources: Iterable[Mapping[str, Any]]) -> str | None:
    """An AWS subnet's availability zone less its letter."""
    for resource in resources:
        if resource.get("type") == "aws:ec2/subnet:Subnet":
            zone = resource_inputs(resource).get("availabilityZone")
            if isinstance(zone, str) and zone[-1:].isalpha():
                return zone[:-1]
    return None


# The `accelplane.pricing` entry point of this cloud (pyproject.toml).
PRICING = CloudPricing(pricer=AwsPricer, table=Path(__file__).with_name("prices.yaml"), plan_region=plan_region,
                       node_disk=NODE_DISK)
