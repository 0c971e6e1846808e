"""Node pools: machine or instance type, accelerator, capacity, scaling, taints and the profile they run."""

from __future__ import annotations

from pydantic import Field, model_validator

from accelplane.declaration.base import (
    CapacityType,
    GpuDriver,
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
    type: CapacityType = Field(default=CapacityType.on_demand, description="on_demand, spot or capacity_reservation.")
    reservation_id: str | None = Field(
        default=None,
        pattern=r"^cr-[0-9a-f]{8,17}$",
        description="AWS: EC2 capacity reservation id (cr-...), required for capacity_reservation.",
    )
    reservation: str | None = Field(
        default=None,
        pattern=r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$",
        description="Google Cloud: name of the specific Compute Engine reservation the nodes consume.",
    )
    discount: PriceDiscount | None = Field(
        default=None, description="Savings Plan or committed use discount rate the nodes are billed at (cost)."
    )

    @model_validator(mode="after")
    def _reservation(self) -> Capacity:
        reserved = self.reservation_id or self.reservation
        if self.type is CapacityType.capacity_reservation and not reserved:
            raise ValueError("capacity_reservation needs reservation_id (AWS, cr-...) or reservation (Google Cloud)")
        if self.type is not CapacityType.capacity_reservation and reserved:
            raise ValueError("reservation_id and reservation are only valid with type capacity_reservation")
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
    efa: bool = Field(default=False, description="AWS: attach EFA interfaces (instance type must support EFA).")
    placement_group: bool = Field(default=False, description="AWS: cluster placement group (EFA training pools).")
    tpu_topology: str | None = Field(
        default=None,
        pattern=r"^[1-9][0-9]*x[1-9][0-9]*(x[1-9][0-9]*)?$",
        description="Google Cloud TPU pools: the slice topology, e.g. 2x4 or 2x2x4; with a multi-host topology "
        "`scaling` counts whole slices (each slice is atomic; a shape change replaces the pool).",
    )
    zones: list[str] | None = Field(
        default=None,
        description="Google Cloud: zones of this pool's nodes (default: gcp.zones); a multi-host TPU slice lives "
        "in exactly one zone that offers its TPU generation.",
    )
    gpu_driver: GpuDriver | None = Field(
        default=None, description="Google Cloud GPU pools: how GKE installs the driver (default: default)."
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
