"""`PlatformNetwork`: the VPC, subnets, routing and NAT, or the ids of an existing VPC."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.declaration import ExistingVpc, NatMode, NewVpc


@dataclass(frozen=True)
class NetworkArgs:
    new_vpc: NewVpc | None
    existing_vpc: ExistingVpc | None
    cluster_name: str
    tags: Mapping[str, str]


class PlatformNetwork(pulumi.ComponentResource):
    vpc_id: pulumi.Output[str]
    vpc_cidr: str
    private_subnet_ids: list[pulumi.Output[str]]
    public_subnet_ids: list[pulumi.Output[str]]

    def __init__(self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:PlatformNetwork", name, None, opts)
        if args.existing_vpc is not None:
            existing = args.existing_vpc
            self.vpc_id = pulumi.Output.from_input(existing.vpc_id)
            self.vpc_cidr = existing.cidr
            self.private_subnet_ids = [pulumi.Output.from_input(s) for s in existing.private_subnet_ids]
            self.public_subnet_ids = [pulumi.Output.from_input(s) for s in existing.public_subnet_ids]
        else:
            assert args.new_vpc is not None  # the config model guarantees exactly one
            self._create(name, args.new_vpc, args)
        self.register_outputs({"vpcId": self.vpc_id, "privateSubnetIds": self.private_subnet_ids})

    def _create(self, name: str, vpc_args: NewVpc, args: NetworkArgs) -> None:
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        vpc = aws.ec2.Vpc(
            f"{name}-vpc",
            cidr_block=vpc_args.cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags={**tags, "Name": f"{name}-vpc"},
            opts=child,
        )
        self.vpc_id = vpc.id
        self.vpc_cidr = vpc_args.cidr
        # Without this the default security group of a new VPC allows all traffic between its members.
        aws.ec2.DefaultSecurityGroup(f"{name}-default-sg", vpc_id=vpc.id, tags=tags, opts=child)
        igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, tags=tags, opts=child)

        # Subnet tags let the AWS Load Balancer Controller and EKS find the right subnets.
        cluster_tag = {f"kubernetes.io/cluster/{args.cluster_name}": "shared"}
        public = self._subnets(
            name,
            "public",
            vpc.id,
            vpc_args.public_subnets,
            vpc_args.availability_zones,
            {**tags, **cluster_tag, "kubernetes.io/role/elb": "1"},
            child,
        )
        private = self._subnets(
            name,
            "private",
            vpc.id,
            vpc_args.private_subnets,
            vpc_args.availability_zones,
            {**tags, **cluster_tag, "kubernetes.io/role/internal-elb": "1"},
            child,
        )
        self.public_subnet_ids = [s.id for s in public]
        self.private_subnet_ids = [s.id for s in private]

        self._route_public(name, vpc.id, igw, public, tags, child)
        # Nodes egress through NAT in a public subnet: one (cheap) or one per zone (no cross-zone SPOF).
        nat_count = 0 if not public else (len(public) if vpc_args.nat is NatMode.per_az else 1)
        self._route_private(name, vpc.id, igw, public[:nat_count], private, tags, child)

    def _route_public(self, name: str, vpc_id: pulumi.Output[str], igw: aws.ec2.InternetGateway,
                      public: list[aws.ec2.Subnet], tags: dict[str, str], child: pulumi.ResourceOptions) -> None:
        """The public subnets' one route table: everything else through the internet gateway."""
        if not public:
            return
        public_rt = aws.ec2.RouteTable(f"{name}-public-rt", vpc_id=vpc_id, tags=tags, opts=child)
        aws.ec2.Route(
            f"{name}-public-default",
            route_table_id=public_rt.id,
            destination_cidr_block="0.0.0.0/0",
            gateway_id=igw.id,
            opts=child,
        )
        for index, subnet in enumerate(public):
            aws.ec2.RouteTableAssociation(
                f"{name}-public-rta-{index}", route_table_id=public_rt.id, subnet_id=subnet.id, opts=child
            )

    def _route_private(self, name: str, vpc_id: pulumi.Output[str], igw: aws.ec2.InternetGateway,
                       nat_subnets: list[aws.ec2.Subnet], private: list[aws.ec2.Subnet], tags: dict[str, str],
                       child: pulumi.ResourceOptions) -> None:
        """A NAT gateway in each of `nat_subnets`, and a route table per private subnet through them in turn."""
        nat_ids: list[pulumi.Output[str]] = []
        for index, subnet in enumerate(nat_subnets):
            eip = aws.ec2.Eip(f"{name}-nat-eip-{index}", domain="vpc", tags=tags, opts=child)
            nat = aws.ec2.NatGateway(
                f"{name}-nat-{index}",
                allocation_id=eip.id,
                subnet_id=subnet.id,
                tags=tags,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[igw]),
            )
            nat_ids.append(nat.id)
        for index, subnet in enumerate(private):
            rt = aws.ec2.RouteTable(f"{name}-private-rt-{index}", vpc_id=vpc_id, tags=tags, opts=child)
            if nat_ids:
                aws.ec2.Route(
                    f"{name}-private-default-{index}",
                    route_table_id=rt.id,
                    destination_cidr_block="0.0.0.0/0",
                    nat_gateway_id=nat_ids[index % len(nat_ids)],
                    opts=child,
                )
            aws.ec2.RouteTableAssociation(
                f"{name}-private-rta-{index}", route_table_id=rt.id, subnet_id=subnet.id, opts=child
            )

    def _subnets(
        self,
        name: str,
        kind: str,
        vpc_id: pulumi.Output[str],
        cidrs: Sequence[str],
        zones: Sequence[str],
        tags: Mapping[str, str],
        child: pulumi.ResourceOptions,
    ) -> list[aws.ec2.Subnet]:
        if not cidrs:
            return []
        return [
            aws.ec2.Subnet(
                f"{name}-{kind}-{index}",
                vpc_id=vpc_id,
                cidr_block=cidr,
                availability_zone=zone,
                # Public subnets host only the ALB and NAT; nothing gets a public IP automatically.
                map_public_ip_on_launch=False,
                tags={**tags, "Name": f"{name}-{kind}-{zone}"},
                opts=child,
            )
            for index, (cidr, zone) in enumerate(zip(cidrs, zones, strict=True))
        ]
