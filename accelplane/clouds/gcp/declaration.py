"""What only a Google Cloud stack declares: the project, zones and GKE version (`gcp:`), the VPC's
node, pod and service ranges, a Compute Engine reservation, a TPU slice's topology, a pool's zones
and GPU driver installation, and the Gateway's Certificate Manager certificate and SSL profile.
`GcpPlatform` is the model `cloud: gcp` selects; a key of another cloud is an unknown key here, named
by the loader with the cloud that has it.

Each class narrows a neutral section (`accelplane.declaration`) by subclassing it; the narrowed
fields carry `reportIncompatibleVariableOverride` waived: sound, as every model is frozen.
"""

from __future__ import annotations

from datetime import UTC
from enum import StrEnum
from typing import ClassVar

from pydantic import AwareDatetime, Field, field_validator, model_validator

from accelplane.clouds.gcp.future_reservation import FutureReservation
from accelplane.declaration import (
    Capacity,
    CapacityType,
    ClientAuth,
    IdTokens,
    InferenceEndpoint,
    Network,
    NodePool,
    Platform,
    Secret,
)
from accelplane.declaration.base import Cidr, Model, Name, _check_cidr
from accelplane.declaration.endpoint import GOOGLE_ISSUER


class ReleaseChannel(StrEnum):
    """GKE release channels (container.v1 ReleaseChannel.channel, without UNSPECIFIED)."""

    RAPID = "RAPID"
    REGULAR = "REGULAR"
    STABLE = "STABLE"
    EXTENDED = "EXTENDED"


class GpuDriver(StrEnum):
    """How GKE installs the NVIDIA driver (container.v1 GPUDriverInstallationConfig.gpuDriverVersion):
    the driver GKE pins as default or latest for the node version, or none (a driver DaemonSet of yours)."""

    default = "default"
    latest = "latest"
    disabled = "disabled"


class SslProfile(StrEnum):
    """Google SSL policy profiles that allow TLS 1.2+ suites only (compute.v1 SslPolicy.profile)."""

    MODERN = "MODERN"
    RESTRICTED = "RESTRICTED"


class GcpSettings(Model):
    """What only Google Cloud needs: the project and zones, and how the GKE version is pinned."""

    project: str = Field(pattern=r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$", description="Google Cloud project id.")
    zones: list[str] = Field(min_length=1, description="Zones of the region the nodes run in (default node locations).")
    gke_version: str | None = Field(
        default=None,
        pattern=r"^1\.\d{2}\.\d+-gke\.\d+$",
        description="Exact GKE version of the control plane and nodes, e.g. 1.33.5-gke.1162000 "
        "(required unless a release channel is declared).",
    )
    release_channel: ReleaseChannel | None = Field(
        default=None, description="Let GKE upgrade within this channel instead of pinning gke_version."
    )


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


class GcpNetwork(Network):
    vpc: GcpVpc | None = Field(default=None, description="The new VPC's node, pod and service ranges.")


class GcpCapacity(Capacity):
    reservation_key: ClassVar[str] = "reservation"
    reservation_form: ClassVar[str] = "a Compute Engine reservation's name"

    reservation: str | None = Field(
        default=None,
        pattern=r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$",
        description="Name of the specific Compute Engine reservation the nodes consume.",
    )

    flex_start: bool = Field(
        default=False,
        description="Dynamic Workload Scheduler flex-start: GKE provisions the pool's GPU or single-host TPU nodes "
        "when capacity is free, for up to 7 days each, at its prices (on-demand only, no reservation; min 0).",
    )

    queued_provisioning: bool = Field(
        default=False,
        description="With flex_start: the pool's nodes come only for a ProvisioningRequest (Kueue's admission check "
        "or one of your own), all of a request's nodes at once (GKE's flex-start with queued provisioning).",
    )
    future_reservation: FutureReservation | None = Field(
        default=None, description="A calendar-mode future reservation the stack requests (`pulumi up` only) and the "
        "pool consumes: the zone and dates `accelplane capacity offerings` recommended, a price cap and approval.",
    )

    def reserved(self) -> str | None:
        if self.future_reservation is not None:
            return f"future reservation in {self.future_reservation.zone}"
        return self.reservation

    @model_validator(mode="after")
    def _one_reservation(self) -> GcpCapacity:
        if self.future_reservation is not None and self.reservation is not None:
            raise ValueError("declare reservation (one you hold) or future_reservation (one to request), not both")
        return self

    @model_validator(mode="after")
    def _flex_start(self) -> GcpCapacity:
        if self.flex_start and self.type is not CapacityType.on_demand:
            raise ValueError("flex_start provisions on-demand capacity: not with spot or a reservation")
        if self.queued_provisioning and not self.flex_start:
            raise ValueError("queued_provisioning is flex-start with queued provisioning: set flex_start too")
        if self.flex_start and self.discount is not None:
            raise ValueError("flex-start is billed at Dynamic Workload Scheduler prices: no committed use discount")
        return self


class GcpNodePool(NodePool):
    capacity: GcpCapacity = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default_factory=GcpCapacity, description="How nodes are bought."
    )
    tpu_topology: str | None = Field(
        default=None,
        pattern=r"^[1-9][0-9]*x[1-9][0-9]*(x[1-9][0-9]*)?$",
        description="TPU pools: the slice topology, e.g. 2x4 or 2x2x4; with a multi-host topology "
        "`scaling` counts whole slices (each slice is atomic; a shape change replaces the pool).",
    )
    zones: list[str] | None = Field(
        default=None,
        description="Zones of this pool's nodes (default: gcp.zones); a multi-host TPU slice lives "
        "in exactly one zone that offers its TPU generation.",
    )
    gpu_driver: GpuDriver | None = Field(
        default=None, description="GPU pools: how GKE installs the driver (default: default)."
    )

    def sized_in_slices(self) -> bool:
        return self.tpu_topology is not None


class GcpIdTokens(IdTokens):
    """ID tokens checked by Identity-Aware Proxy on the Gateway's backend services (GCPBackendPolicy `iap`),
    with a custom OAuth client: IAP's Google-managed client serves browsers of the organisation only, not
    programmatic callers (https://cloud.google.com/iap/docs/custom-oauth-configuration)."""

    oauth_client_secret: Name = Field(
        description="The platform secret (under `secrets`) holding the OAuth client's secret: `pulumi up` copies it "
        "from Secret Manager into the Kubernetes Secret the Gateway reads; it is never in a stack file.",
    )

    @model_validator(mode="after")
    def _google_tokens(self) -> GcpIdTokens:
        if self.issuer != GOOGLE_ISSUER:
            raise ValueError(f"Identity-Aware Proxy validates Google-signed tokens only: issuer {GOOGLE_ISSUER}, "
                             f"not {self.issuer}")
        return self


class GcpClientAuth(ClientAuth):
    id_tokens: GcpIdTokens | None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="Validate callers' Google-signed ID tokens (Identity-Aware Proxy). Client "
        "certificates (mutual TLS) are not offered: the pinned GKE Gateway policies and Gateway API 1.2.1 have no "
        "client-certificate validation.",
    )


class GcpInferenceEndpoint(InferenceEndpoint):
    client_auth: GcpClientAuth | None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="How the Gateway authenticates clients before a request reaches a model server "
        "(Identity-Aware Proxy on every exposed service's backend).",
    )
    certificate: str | None = Field(
        default=None,
        pattern=r"^projects/[a-z][a-z0-9-]{4,28}[a-z0-9]/locations/global/certificates/[a-z]([-a-z0-9]{0,61}[a-z0-9])?$",
        description="Certificate Manager certificate (projects/<p>/locations/global/certificates/<n>) "
        "the Gateway serves.",
    )
    ssl_profile: SslProfile = Field(
        default=SslProfile.MODERN,
        description="SSL policy profile; the minimum TLS version is always 1.2.",
    )


class GcpSecret(Secret):
    """A Secret Manager secret."""

    first_rotation: AwareDatetime | None = Field(
        default=None,
        description="When Secret Manager first sends the rotation notification (RFC 3339 with its offset, e.g. "
        "2027-01-04T09:00:00Z), then every rotation_days; required with rotation_days, since Secret Manager needs "
        "a next rotation time with a period. Google refuses a time less than 5 minutes ahead when the secret is "
        "created; after that Google moves it on and `pulumi up` leaves it be. The notifications go to the stack's "
        "rotation topic, whose subscriber adds the new version.",
    )

    rotation_needs: ClassVar[tuple[str, str] | None] = (
        "first_rotation",
        "Secret Manager sends the first rotation notification at first_rotation, then one every rotation_days",
    )

    @property
    def next_rotation_time(self) -> str | None:
        """first_rotation in UTC, as Secret Manager's RFC 3339 "Zulu" timestamps."""
        if self.first_rotation is None:
            return None
        return self.first_rotation.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class GcpPlatform(Platform):
    """A GKE stack (`cloud: gcp`)."""

    gcp: GcpSettings | None = Field(default=None, description="The project, zones and GKE version.")
    network: GcpNetwork = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        description="The VPC's ranges and who may reach the cluster API."
    )
    node_pools: list[GcpNodePool] = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        min_length=1, description="GKE node pools."
    )
    inference_endpoint: GcpInferenceEndpoint | None = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default=None, description="Public HTTPS inference endpoint (a GKE Gateway)."
    )
    secrets: list[GcpSecret] = Field(  # pyright: ignore[reportIncompatibleVariableOverride]
        default_factory=list, description="Secret Manager secrets (values never here)."
    )

    @property
    def resource_labels(self) -> dict[str, str]:
        """The same facts as `resource_tags` as Google Cloud labels (lower-case keys without ':')."""
        return {key.replace(":", "-"): value for key, value in self.resource_tags.items()}


def gcp_pool(pool: NodePool) -> GcpNodePool:
    """A pool of a Google Cloud stack, as the model it was loaded with."""
    if not isinstance(pool, GcpNodePool):
        raise TypeError(f"a Google Cloud stack's pool is a GcpNodePool, got {type(pool).__name__}")
    return pool


def gcp_platform(platform: Platform) -> GcpPlatform:
    """The platform as the Google Cloud model it was loaded with (the registry hands this cloud only
    its own stacks)."""
    if not isinstance(platform, GcpPlatform):
        raise TypeError(f"a Google Cloud stack's platform is a GcpPlatform, got {type(platform).__name__}")
    return platform
