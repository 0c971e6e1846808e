"""Workloads with their bucket grants, secrets and waivers of policy rules."""

from __future__ import annotations

from datetime import date
from typing import ClassVar

from pydantic import Field, model_validator

from accelplane.declaration.base import (
    BucketAccess,
    BucketRole,
    Model,
    Name,
    WorkloadKind,
)


class Secret(Model):
    """A secret in the cloud's secret store. Its readers are the workloads that list it under `secrets`."""

    name: Name
    description: str = Field(default="", description="What the secret holds (never its value).")
    rotation_days: int | None = Field(
        default=None, ge=1, le=1000,
        description="Rotate the secret every this many days (1-1000). What rotates it is the cloud's: see the "
        "cloud's own keys beside this one. Without it the secret never rotates (flagged by the rules).",
    )

    # The cloud's key that goes with rotation_days (what rotates the secret, or when it first does), and why.
    rotation_needs: ClassVar[tuple[str, str] | None] = None

    @model_validator(mode="after")
    def _rotation_goes_with_the_cloud_s_key(self) -> Secret:
        if self.rotation_needs is not None:
            key, why = self.rotation_needs
            if (self.rotation_days is None) != (getattr(self, key) is None):
                raise ValueError(f"rotation_days and {key} go together: {why}")
        return self

class BucketGrant(Model):
    role: BucketRole = Field(description="Which bucket.")
    access: BucketAccess = Field(description="read, write or read_write.")
    prefix: str = Field(
        pattern=r"^[A-Za-z0-9!_.*'()/-]*$",
        description="Key prefix the workload may touch, e.g. 'trainer/'. '' means the whole bucket.",
    )

class RunAs(Model):
    """A pod's user: non-root and high enough (>= 10000) never to be a user of the node
    (checkov CKV_K8S_40); `fs_group` owns the writable volumes."""

    user: int = Field(default=10001, ge=10000, le=2147483647, description="runAsUser of every container.")
    group: int = Field(default=10001, ge=10000, le=2147483647, description="runAsGroup of every container.")
    fs_group: int = Field(default=10001, ge=10000, le=2147483647, description="fsGroup of the pod's volumes.")


class Workload(Model):
    name: Name
    kind: WorkloadKind = Field(description="training, inference or batch.")
    namespace: Name = Field(description="Kubernetes namespace of the workload.")
    service_account: Name | None = Field(default=None, description="Service account name (default: workload name).")
    buckets: list[BucketGrant] = Field(default_factory=list, description="Bucket prefixes the workload may touch.")
    secrets: list[Name] = Field(default_factory=list, description="Secrets the workload may read.")
    run_as: RunAs = Field(
        default_factory=lambda: RunAs(), description="The UID and GIDs its pods run as (the image's own user)."
    )

    @property
    def service_account_name(self) -> str:
        return self.service_account or self.name

class Waiver(Model):
    rule: str = Field(min_length=1, description="Rule id being waived.")
    resource: str = Field(min_length=1, description="Resource name (or URN) the waiver applies to.")
    reason: str = Field(min_length=10, description="Why the finding is accepted (required).")
    owner: str = Field(min_length=1, description="Who accepted it.")
    expires: date = Field(description="Date the waiver stops applying (YYYY-MM-DD).")
