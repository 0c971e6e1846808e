"""The network section's shared part (who may reach the cluster API) and the tags; the VPC itself is
declared in the cloud's own terms (each cloud's `declaration` module extends `Network`)."""

from __future__ import annotations

from pydantic import Field, field_validator

from accelplane.declaration.base import (
    Cidr,
    Model,
    _check_cidr,
)


class Tags(Model):
    owner: str = Field(min_length=1, description="Team or person accountable for the platform.")
    cost_centre: str = Field(min_length=1, description="Cost centre billed for the platform.")
    extra: dict[str, str] = Field(default_factory=dict, description="More tags applied to every taggable resource.")

class Network(Model):
    api_allowed_cidrs: list[Cidr] = Field(
        default_factory=list,
        description="CIDRs allowed to reach the cluster API publicly; empty keeps the endpoint private only.",
    )

    @field_validator("api_allowed_cidrs")
    @classmethod
    def _api(cls, value: list[str]) -> list[str]:
        return [_check_cidr(v) for v in value]
