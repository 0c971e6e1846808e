"""The network section: a new or an existing AWS VPC, or a Google Cloud VPC, and tags."""

from __future__ import annotations

from pydantic import Field, field_validator

from accelplane.declaration.base import (
    Cidr,
    Model,
    NatMode,
    _check_cidr,
)


class Tags(Model):
    owner: str = Field(min_length=1, description="Team or person accountable for the platform.")
    cost_centre: str = Field(min_length=1, description="Cost centre billed for the platform.")
    extra: dict[str, str] = Field(default_factory=dict, description="More tags applied to every taggable resource.")

class NewVpc(Model):
    cidr: Cidr = Field(description="CIDR of the new VPC.")
    availability_zones: list[str] = Field(min_length=1, description="Availability zones, one subnet pair each.")
    private_subnets: list[Cidr] = Field(min_length=1, description="Node subnets, one per availability zone.")
    public_subnets: list[Cidr] = Field(
        default_factory=list, description="Load-balancer-only subnets, one per availability zone."
    )
    nat: NatMode = Field(default=NatMode.single, description="One NAT gateway, or one per zone (prod).")

    _cidr = field_validator("cidr")(_check_cidr)

    @field_validator("private_subnets", "public_subnets")
    @classmethod
    def _subnets(cls, value: list[str]) -> list[str]:
        return [_check_cidr(v) for v in value]

class ExistingVpc(Model):
    vpc_id: str = Field(pattern=r"^vpc-[0-9a-f]{8,17}$", description="Id of the existing VPC.")
    cidr: Cidr = Field(description="CIDR of the existing VPC (security group rules are scoped to it).")
    private_subnet_ids: list[str] = Field(min_length=1, description="Existing private subnet ids for nodes.")
    public_subnet_ids: list[str] = Field(default_factory=list, description="Existing public subnet ids for the ALB.")

    _cidr = field_validator("cidr")(_check_cidr)

class GcpVpc(Model):
    """A new VPC on Google Cloud: one private node subnet with secondary ranges for pods and services."""

    node_cidr: Cidr = Field(description="Primary range of the node subnet.")
    pods_cidr: Cidr = Field(description="Secondary range for pod IPs (VPC-native cluster).")
    services_cidr: Cidr = Field(description="Secondary range for Service IPs.")
    control_plane_cidr: Cidr = Field(description="A /28 for the GKE control plane's private endpoint.")

    @field_validator("node_cidr", "pods_cidr", "services_cidr", "control_plane_cidr")
    @classmethod
    def _cidrs(cls, value: str) -> str:
        return _check_cidr(value)

class Network(Model):
    new_vpc: NewVpc | None = Field(default=None, description="AWS: create a new VPC with these settings.")
    existing_vpc: ExistingVpc | None = Field(default=None, description="AWS: use this existing VPC instead.")
    vpc: GcpVpc | None = Field(default=None, description="Google Cloud: the new VPC's node, pod and service ranges.")
    api_allowed_cidrs: list[Cidr] = Field(
        default_factory=list,
        description="CIDRs allowed to reach the cluster API publicly; empty keeps the endpoint private only.",
    )

    @field_validator("api_allowed_cidrs")
    @classmethod
    def _api(cls, value: list[str]) -> list[str]:
        return [_check_cidr(v) for v in value]
