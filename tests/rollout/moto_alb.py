"""The stack's endpoint as the build leaves it, in moto: an ALB and one target group per (exposed
service, backend), tagged as the build tags them, an HTTPS listener whose default action forwards
to the "/" service's target groups by weight and a rule per other service (path `<prefix>*`).
Plus CloudWatch's ALB counts, written with put_metric_data."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import boto3

from accelplane.config.loader import StackConfig

REGION = "us-east-1"


@dataclass
class MotoAlb:
    stack: StackConfig
    session: Any = field(default_factory=lambda: boto3.Session(region_name=REGION))
    target_groups: dict[tuple[str, str], str] = field(default_factory=dict)  # (service, backend) -> ARN
    load_balancer_arn: str = ""
    listener_arn: str = ""
    rules: dict[str, str] = field(default_factory=dict)  # service -> rule ARN
    endpoint_url: str | None = None  # a ThreadedMotoServer; None: moto in process (mock_aws)

    def client(self, name: str) -> Any:
        return self.session.client(name, region_name=REGION, endpoint_url=self.endpoint_url)

    def create(self, skip: tuple[tuple[str, str], ...] = ()) -> MotoAlb:
        ec2, elbv2 = self.client("ec2"), self.client("elbv2")
        platform = self.stack.platform
        tags = [{"Key": "accelplane:platform", "Value": platform.name},
                {"Key": "accelplane:environment", "Value": platform.environment.value}]
        vpc = ec2.create_vpc(CidrBlock="10.40.0.0/16")["Vpc"]["VpcId"]
        subnets = [ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.40.{i}.0/24", AvailabilityZone=f"{REGION}{zone}")
                   ["Subnet"]["SubnetId"] for i, zone in enumerate("ab")]
        self.load_balancer_arn = elbv2.create_load_balancer(Name="acme-ml-canary-alb", Subnets=subnets, Tags=tags,
                                                            Type="application")["LoadBalancers"][0]["LoadBalancerArn"]
        layer = platform.kubernetes
        assert layer is not None
        for service in layer.inference_services:
            for backend in service.serving_backends:
                if (service.name, backend.name) in skip:
                    continue
                self.target_groups[(service.name, backend.name)] = elbv2.create_target_group(
                    Name=f"{service.name}-{backend.name}"[:32], Protocol="HTTP", Port=service.port, VpcId=vpc,
                    TargetType="ip",
                    Tags=[*tags, {"Key": "accelplane:service", "Value": service.name},
                          {"Key": "accelplane:backend", "Value": backend.name}],
                )["TargetGroups"][0]["TargetGroupArn"]
        certificate = self.client("acm").request_certificate(DomainName="infer.example.com")["CertificateArn"]
        default = next(s for s in layer.inference_services if s.path_prefix == "/")
        self.listener_arn = elbv2.create_listener(
            LoadBalancerArn=self.load_balancer_arn, Protocol="HTTPS", Port=443,
            Certificates=[{"CertificateArn": certificate}], SslPolicy="ELBSecurityPolicy-TLS13-1-2-2021-06",
            DefaultActions=[self._forward(default)], Tags=tags,
        )["Listeners"][0]["ListenerArn"]
        for priority, service in enumerate((s for s in layer.inference_services if s.path_prefix != "/"), 10):
            self.rules[service.name] = elbv2.create_rule(
                ListenerArn=self.listener_arn, Priority=priority,
                Conditions=[{"Field": "path-pattern", "Values": [f"{service.path_prefix}*"]}],
                Actions=[self._forward(service)],
            )["Rules"][0]["RuleArn"]
        return self

    def _forward(self, service: Any) -> dict[str, Any]:
        groups = [{"TargetGroupArn": self.target_groups[(service.name, b.name)], "Weight": b.weight}
                  for b in service.serving_backends if (service.name, b.name) in self.target_groups]
        return {"Type": "forward", "ForwardConfig": {"TargetGroups": groups}}

    def live(self, service: str) -> dict[str, int]:
        """Weights of the service's route, by backend, as ELBv2 reports them."""
        elbv2 = self.client("elbv2")
        if service in self.rules:
            [rule] = [r for r in elbv2.describe_rules(ListenerArn=self.listener_arn)["Rules"]
                      if r["RuleArn"] == self.rules[service]]
            actions = rule["Actions"]
        else:
            [listener] = elbv2.describe_listeners(ListenerArns=[self.listener_arn])["Listeners"]
            actions = listener["DefaultActions"]
        names = {arn: backend for (svc, backend), arn in self.target_groups.items() if svc == service}
        return {names[g["TargetGroupArn"]]: g["Weight"] for g in actions[0]["ForwardConfig"]["TargetGroups"]}

    def dimensions(self, service: str, backend: str) -> list[dict[str, str]]:
        return [{"Name": "TargetGroup", "Value": self.target_groups[(service, backend)].split(":", 5)[-1]},
                {"Name": "LoadBalancer", "Value": self.load_balancer_arn.split(":loadbalancer/", 1)[-1]}]

    def put_counts(self, service: str, backend: str, at: datetime, requests: float, errors: float) -> None:
        data = [{"MetricName": "RequestCount", "Value": requests}]
        if errors:  # the ALB publishes no 5xx data point when there were none
            data.append({"MetricName": "HTTPCode_Target_5XX_Count", "Value": errors})
        self.client("cloudwatch").put_metric_data(Namespace="AWS/ApplicationELB", MetricData=[
            {**item, "Dimensions": self.dimensions(service, backend), "Timestamp": at, "Unit": "Count"}
            for item in data
        ])
