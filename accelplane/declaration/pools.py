"""Node pools: machine or instance type, accelerator, capacity, scaling, taints and the profile they run.

What only one cloud has (a reservation's id, EFA, a TPU slice's topology) is added by that cloud's
`declaration` module, which extends `Capacity` and `NodePool`."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from accelplane.declaration.base import (
    CapacityType,
    Model,
    Name,
    Purpose,
    TaintEffect,
)
from accelplane.declaration.cost import Expiry, IdlePolicy, PriceDiscount


class Taint(Model):
    key: str = Field(min_length=1, max_length=63, description="Taint key, e.g. nvidia.com/gpu.")
    value: str = Field(default="", max_length=63, description="Taint value.")
    effect: TaintEffect = Field(description="NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE.")

class Capacity(Model):
    # The cloud's field naming the reservation the nodes consume, and what its value is (for messages).
    reservation_key: ClassVar[str] = "a reservation"
    reservation_form: ClassVar[str] = ""

    type: CapacityType = Field(default=CapacityType.on_demand, description="on_demand, spot or capacity_reservation.")
    discount: PriceDiscount | None = Field(
        default=None, description="Savings Plan or committed use discount rate the nodes are billed at (cost)."
    )

    def reserved(self) -> str | None:
        """The reservation the nodes consume, in the cloud's own terms; None on a cloud without one."""
        return None

    @model_validator(mode="after")
    def _reservation(self) -> Capacity:
        reserved = self.reserved()
        if self.type is CapacityType.capacity_reservation and not reserved:
            form = f" ({self.reservation_form})" if self.reservation_form else ""
            raise ValueError(f"capacity_reservation needs {self.reservation_key}{form}")
        if self.type is not CapacityType.capacity_reservation and reserved:
            raise ValueError(f"{self.reservation_key} is only valid with type capacity_reservation")
        if self.type is CapacityType.spot and self.discount is not None:
            raise ValueError("a Savings Plan or committed use discount does not apply to spot capacity")
        return self

class Scaling(Model):
    min: int = Field(ge=0, description="Minimum node count.")
    desired: int = Field(ge=0, description="Desired node count at creation.")
    max: int = Field(ge=1, description="Maximum node count.")

class NodePool(Model):
    name: Name
    purpose: Purpose = Field(description="training, inference or general.")
    accelerator: str | None = Field(
        default=None, description="Accelerator from the matrix vocabulary (e.g. nvidia-h100); omit for CPU pools."
    )
    instance_type: str = Field(
        description="AWS: EC2 instance type (p5.48xlarge); Google Cloud: machine type (a3-highgpu-8g, ct5p-hightpu-4t)."
    )
    software_profile: Name | None = Field(
        default=None, description="Name of a software profile (required with accelerator)."
    )
    capacity: Capacity = Field(default_factory=Capacity, description="How nodes are bought.")
    scaling: Scaling = Field(description="Node counts: min <= desired <= max.")
    disk_gib: int = Field(default=200, ge=20, le=16384, description="Root volume size in GiB (gp3, encrypted).")
    labels: dict[str, str] = Field(default_factory=dict, description="Extra Kubernetes node labels.")
    taints: list[Taint] | None = Field(
        default=None, description="Node taints; default is the accelerator's taint (none for CPU pools)."
    )
    group: str | None = Field(
        default=None, description="Pools in one group train together and must share driver, runtime and NCCL."
    )
    idle: IdlePolicy | None = Field(
        default=None, description="When the pool's accelerators count as idle (default per environment)."
    )
    expiry: Expiry | None = Field(
        default=None,
        description="Owner and last day of a development or experiment pool (required for accelerator pools "
        "of a dev stack); the pool must be able to scale to zero.",
    )

    def uses_efa(self) -> bool:
        """Whether the nodes attach Elastic Fabric Adapter interfaces (the EFA device plugin and the
        node label follow it); False on a cloud without EFA."""
        return False

    def fabric_plugin_field(self) -> str | None:
        """The software-profile field pinning the device plugin of the network fabric the pool's nodes
        attach (AWS: the EFA device plugin); None where they attach none."""
        return None

    def sized_in_slices(self) -> bool:
        """Whether `scaling` counts atomic multi-host slices rather than nodes."""
        return False
