"""`InferenceEndpoint`: a public ALB with an HTTPS listener, an optional HTTP redirect and an IP target group.

Pods are registered as IP targets by the AWS Load Balancer Controller through a
TargetGroupBinding (Kubernetes layer), so the ALB itself stays declared here, in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from accelplane.config.model import InferenceEndpoint as EndpointSpec


@dataclass(frozen=True)
class InferenceEndpointArgs:
    spec: EndpointSpec
    vpc_id: pulumi.Input[str]
    public_subnet_ids: Sequence[pulumi.Input[str]]
    security_group_id: pulumi.Input[str]
    tags: Mapping[str, str]


class InferenceEndpoint(pulumi.ComponentResource):
    dns_name: pulumi.Output[str]
    target_group_arn: pulumi.Output[str]

    def __init__(self, name: str, args: InferenceEndpointArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:InferenceEndpoint", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        spec = args.spec
        tags = dict(args.tags)
        alb = aws.lb.LoadBalancer(
            f"{name}-alb",
            load_balancer_type="application",
            internal=False,
            subnets=list(args.public_subnet_ids),
            security_groups=[args.security_group_id],
            drop_invalid_header_fields=True,
            idle_timeout=spec.idle_timeout_seconds,
            tags=tags,
            opts=child,
        )
        health = spec.health_check
        target_group = aws.lb.TargetGroup(
            f"{name}-tg",
            target_type="ip",
            port=spec.target_port,
            protocol="HTTP",
            vpc_id=args.vpc_id,
            deregistration_delay=30,
            health_check={
                "enabled": True,
                "path": health.path,
                "port": "traffic-port",
                "protocol": "HTTP",
                "interval": health.interval_seconds,
                "timeout": health.timeout_seconds,
                "healthy_threshold": health.healthy_threshold,
                "unhealthy_threshold": health.unhealthy_threshold,
                "matcher": health.matcher,
            },
            tags=tags,
            opts=child,
        )
        aws.lb.Listener(
            f"{name}-https",
            load_balancer_arn=alb.arn,
            port=spec.listener_port,
            protocol="HTTPS",
            ssl_policy=spec.tls_policy,
            certificate_arn=spec.certificate_arn,
            default_actions=[{"type": "forward", "target_group_arn": target_group.arn}],
            tags=tags,
            opts=child,
        )
        if spec.http_redirect:
            # Port 80 only ever answers with a redirect: AP-LB-002 requires it, and it is the one condition
            # on which AP-NET-001 lets port 80 be open to the internet.
            aws.lb.Listener(
                f"{name}-http-redirect",
                load_balancer_arn=alb.arn,
                port=80,
                protocol="HTTP",
                default_actions=[
                    {
                        "type": "redirect",
                        "redirect": {"port": str(spec.listener_port), "protocol": "HTTPS", "status_code": "HTTP_301"},
                    }
                ],
                tags=tags,
                opts=child,
            )
        self.dns_name = alb.dns_name
        self.target_group_arn = target_group.arn
        self.register_outputs({"dnsName": alb.dns_name, "targetGroupArn": target_group.arn})
