"""VPC, subnets, security groups and their rules (EC2)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from accelplane.clouds.aws.verify.live_inventory import UNREADABLE, tags_of
from accelplane.clouds.aws.verify.live_view.core import (
    EGRESS,
    INGRESS,
    ViewCore,
)
from accelplane.rules.view import Resource
from accelplane.verify.canonical import canonical


def _eks_default_rule(rule: Mapping[str, Any]) -> bool:
    """One of the rules EKS creates in the cluster security group: all traffic from the group itself
    (ingress), all traffic to anywhere (egress, IPv4 or IPv6). Any other rule there was added."""
    if rule.get("IpProtocol") != "-1":
        return False
    if rule.get("IsEgress"):
        return rule.get("CidrIpv4") == "0.0.0.0/0" or rule.get("CidrIpv6") == "::/0"
    return (rule.get("ReferencedGroupInfo") or {}).get("GroupId") == rule.get("GroupId")


class NetworkReader(ViewCore):
    """VPC, subnets, security groups and their rules (EC2)."""

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
        vpcs_unread = any(r.urn in self.view.unreadable for r in self.declared.of_type("aws:ec2/vpc:Vpc"))
        for resource in defaults:
            live_vpc = self._live_ref(resource.props.get("vpcId"))
            if live_vpc is None and vpcs_unread:
                # Found by its VPC's id: with the VPC unread, not finding it says nothing.
                self._unreadable([resource], "its VPC could not be read")
                continue
            vpc_id = live_vpc or resource.props.get("vpcId")
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
        declared = [*self.declared.of_type(INGRESS), *self.declared.of_type(EGRESS)]
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
                    self.view.read[EGRESS if rule.get("IsEgress") else INGRESS] += 1
                continue
            type_token = EGRESS if rule.get("IsEgress") else INGRESS
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
