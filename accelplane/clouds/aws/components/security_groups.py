"""`PlatformSecurityGroups`: least-privilege groups for the load balancer and the node pools.

- load balancer: the HTTPS listener port (and port 80 when the endpoint declares the HTTP redirect)
  from the allowed CIDRs only; egress only to the inference nodes on the service port;
- inference nodes: the service port from the load balancer's group only;
- training nodes: all traffic to and from their own group, what EFA and NCCL need, nothing else in;
- no SSH or RDP from anywhere; node egress leaves through NAT for images and AWS APIs.
Rules are separate `aws.vpc` rule resources, so a rule change never replaces a group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws


@dataclass(frozen=True)
class SecurityGroupsArgs:
    vpc_id: pulumi.Input[str]
    load_balancer_cidrs: Sequence[str]  # empty: no load balancer group
    listener_port: int
    http_redirect: bool  # also admit port 80, where the endpoint's listener only redirects to HTTPS
    target_port: int
    training: bool
    tags: Mapping[str, str]


class PlatformSecurityGroups(pulumi.ComponentResource):
    load_balancer_id: pulumi.Output[str] | None
    inference_id: pulumi.Output[str]
    training_id: pulumi.Output[str] | None

    def __init__(self, name: str, args: SecurityGroupsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:PlatformSecurityGroups", name, None, opts)
        self._child = pulumi.ResourceOptions(parent=self)
        self._tags = dict(args.tags)
        inference = self._group(name, "inference", "Inference nodes: service port from the load balancer", args)
        self.inference_id = inference.id
        self.load_balancer_id = None
        if args.load_balancer_cidrs:
            lb = self._group(name, "lb", "Inference load balancer: HTTPS from allowed CIDRs", args)
            self.load_balancer_id = lb.id
            for index, cidr in enumerate(args.load_balancer_cidrs):
                ports = {args.listener_port, *([80] if args.http_redirect else [])}
                for port in sorted(ports):
                    aws.vpc.SecurityGroupIngressRule(
                        f"{name}-lb-in-{port}-{index}",
                        security_group_id=lb.id,
                        ip_protocol="tcp",
                        from_port=port,
                        to_port=port,
                        **_cidr_arg(cidr),
                        description="HTTPS" if port == args.listener_port else "HTTP, redirected to HTTPS",
                        tags=self._tags,
                        opts=self._child,
                    )
            aws.vpc.SecurityGroupEgressRule(
                f"{name}-lb-out-targets",
                security_group_id=lb.id,
                ip_protocol="tcp",
                from_port=args.target_port,
                to_port=args.target_port,
                referenced_security_group_id=inference.id,
                description="to inference pods",
                tags=self._tags,
                opts=self._child,
            )
            aws.vpc.SecurityGroupIngressRule(
                f"{name}-inference-in-lb",
                security_group_id=inference.id,
                ip_protocol="tcp",
                from_port=args.target_port,
                to_port=args.target_port,
                referenced_security_group_id=lb.id,
                description="service port from the load balancer",
                tags=self._tags,
                opts=self._child,
            )
        self._egress_anywhere(name, "inference", inference.id)
        self.training_id = None
        if args.training:
            training = self._group(name, "training", "Training nodes: EFA/NCCL traffic within the group only", args)
            self.training_id = training.id
            # EFA requires all traffic to and from members of the same group (AWS EFA user guide).
            aws.vpc.SecurityGroupIngressRule(
                f"{name}-training-in-self",
                security_group_id=training.id,
                ip_protocol="-1",
                referenced_security_group_id=training.id,
                description="EFA/NCCL within the group",
                tags=self._tags,
                opts=self._child,
            )
            aws.vpc.SecurityGroupEgressRule(
                f"{name}-training-out-self",
                security_group_id=training.id,
                ip_protocol="-1",
                referenced_security_group_id=training.id,
                description="EFA/NCCL within the group",
                tags=self._tags,
                opts=self._child,
            )
            self._egress_anywhere(name, "training", training.id)
        self.register_outputs({"inference": self.inference_id})

    def _group(self, name: str, role: str, description: str, args: SecurityGroupsArgs) -> aws.ec2.SecurityGroup:
        # No inline rules: inline and separate rule resources fight each other.
        return aws.ec2.SecurityGroup(
            f"{name}-{role}",
            vpc_id=args.vpc_id,
            description=description,
            tags={**self._tags, "Name": f"{name}-{role}"},
            opts=self._child,
        )

    def _egress_anywhere(self, name: str, role: str, group_id: pulumi.Output[str]) -> None:
        # Nodes reach ECR, S3 and the EKS API through NAT or endpoints; egress is not an attack surface here.
        aws.vpc.SecurityGroupEgressRule(
            f"{name}-{role}-out-any",
            security_group_id=group_id,
            ip_protocol="-1",
            cidr_ipv4="0.0.0.0/0",
            description="egress through NAT",
            tags=self._tags,
            opts=self._child,
        )


def _cidr_arg(cidr: str) -> dict[str, str]:
    return {"cidr_ipv6": cidr} if ":" in cidr else {"cidr_ipv4": cidr}
