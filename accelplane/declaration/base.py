"""Shared shapes of the declaration: the strict base model, names, versions, CIDRs, image digests,
durations and the closed vocabularies."""

from __future__ import annotations

import ipaddress
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Name = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$"),
    Field(description="Lower-case DNS-style name: letters, digits and '-', 2-40 characters."),
]

Version = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9A-Za-z][0-9A-Za-z.+_-]*$", max_length=64),
    Field(description='An exact version string, written as a YAML string (quote it: "12.8").'),
]

Hostname = Annotated[
    str,
    StringConstraints(pattern=r"^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$", max_length=253),
    Field(description="A fully qualified DNS name in lower case, without the trailing dot: llm.example.com."),
]

Cidr = Annotated[str, Field(description="An IPv4 or IPv6 network in CIDR notation, e.g. 10.0.0.0/16.")]

ImageDigest = Annotated[
    str,
    StringConstraints(pattern=r"^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+@sha256:[0-9a-f]{64}$"),
    Field(description="Container image by digest: registry/repository@sha256:<64 hex>."),
]

class Model(BaseModel):
    """Base: strict shape, immutable once validated."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)

def _check_cidr(value: str) -> str:
    try:
        return str(ipaddress.ip_network(value, strict=True))
    except ValueError as error:
        raise ValueError(f"expected a network in CIDR notation like 10.0.0.0/16 ({error})") from None

class Environment(StrEnum):
    dev = "dev"
    staging = "staging"
    prod = "prod"

class Purpose(StrEnum):
    training = "training"
    inference = "inference"
    general = "general"

class CapacityType(StrEnum):
    on_demand = "on_demand"
    spot = "spot"
    capacity_reservation = "capacity_reservation"

class TaintEffect(StrEnum):
    """EKS managed node group taint effects (botocore eks `TaintEffect`)."""

    NO_SCHEDULE = "NO_SCHEDULE"
    NO_EXECUTE = "NO_EXECUTE"
    PREFER_NO_SCHEDULE = "PREFER_NO_SCHEDULE"

class BucketRole(StrEnum):
    datasets = "datasets"
    checkpoints = "checkpoints"
    logs = "logs"
    model_artifacts = "model_artifacts"

class BucketAccess(StrEnum):
    read = "read"
    write = "write"
    read_write = "read_write"

class WorkloadKind(StrEnum):
    training = "training"
    inference = "inference"
    batch = "batch"

Duration = Annotated[
    str,
    StringConstraints(pattern=r"^[1-9][0-9]{0,5}(s|m|h)$|^0s$"),
    Field(description="A duration in seconds, minutes or hours: 30s, 10m, 1h."),
]

Timestamp = Annotated[
    str,
    StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"),
    Field(description='A UTC time, ISO 8601: "2026-12-03T06:00:00Z".'),
]

def duration_seconds(value: str) -> int:
    """Seconds in a `Duration` ("30s", "10m", "1h")."""
    return int(value[:-1]) * {"s": 1, "m": 60, "h": 3600}[value[-1]]
