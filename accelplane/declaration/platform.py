"""The whole declaration of one stack (`Platform`): what every cloud shares, with its air-gap settings.

Each cloud extends `Platform` in its own `declaration` module with what only it has (the VPC in its
terms, its pools', endpoint's and secrets' own keys, project settings) and narrows the sections it
extends; `cloud:` picks that model when a stack is loaded (`accelplane.config.loader`), so a key of
another cloud is an unknown key there. The narrowed fields override these with subclasses of their
types: sound because every model is frozen, though pyright reads a field as mutable (hence its
`reportIncompatibleVariableOverride` waived on those lines)."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from accelplane.declaration.audit import AuditTrail
from accelplane.declaration.bare_metal import BareMetal
from accelplane.declaration.base import (
    Environment,
    Model,
    Name,
)
from accelplane.declaration.cost import Budget
from accelplane.declaration.endpoint import InferenceEndpoint
from accelplane.declaration.kubernetes import (
    KubernetesLayer,
)
from accelplane.declaration.network import Network, Tags
from accelplane.declaration.pools import NodePool
from accelplane.declaration.software import SoftwareProfile
from accelplane.declaration.storage import Bucket
from accelplane.declaration.workloads import Secret, Waiver, Workload


class AirGap(Model):
    """An air-gapped stack: every artifact comes from one mirror that `accelplane bundle fetch` built
    (docs/bundle.md). The stack's other sources stay its upstream ones, which `bundle lock` reads on
    the connected side; the nodes and the Kubernetes layer get only the mirror named here
    (accelplane.nodes.air_gap, accelplane.k8s.mirror), and `accelplane check` (AP-AIR-001) flags any
    effective artifact source that is not in it."""

    mirror_url: str = Field(
        pattern=r"^(https?|file):\S+[^/]$",
        description="Base URL of the mirror as the nodes reach it (no trailing '/'): apt repository at <url>/apt, "
        "Python index at <url>/python/simple/, installers at <url>/files/, charts at <url>/charts.",
    )
    registry: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9.-]+(:[0-9]+)?(/[a-z0-9._-]+)*$",
        description="Registry (host[:port][/prefix]) the locked images are synced to; images by digest must name it.",
    )
    signed_by: str | None = Field(
        default=None,
        validate_default=True,
        pattern=r"^/\S+$",
        description="Keyring file on the nodes that signs the mirror's apt Release (`bundle fetch --sign-with`); "
        "may be omitted only for a file: mirror_url, which is then trusted.",
    )

    @field_validator("signed_by")
    @classmethod
    def _signed(cls, value: str | None, info: ValidationInfo) -> str | None:
        # Same rule as AptRepository: only a local file: repository may go unsigned. Reported on
        # this field (validate_default) so the error names `air_gap.signed_by` and its line.
        mirror_url = info.data.get("mirror_url")
        if value is None and isinstance(mirror_url, str) and not mirror_url.startswith("file:"):
            raise ValueError("declare the keyring on the nodes that signs the mirror's apt Release "
                             "(only a file: mirror_url may omit it)")
        return value

class Platform(Model):
    """Everything one stack declares, under `accelplane:platform`."""

    # Required here; the cloud a stack file without `cloud:` means is the registry's DEFAULT_CLOUD,
    # whose own model gives the default (a neutral model names no cloud).
    cloud: str = Field(
        pattern=r"^[a-z][a-z0-9]*$",
        description="The cloud the stack runs on, one of the installed clouds (`accelplane schema` lists them).",
    )
    name: Name = Field(description="Platform name, the prefix of every resource name.")
    environment: Environment = Field(description="dev, staging or prod.")
    region: str = Field(
        pattern=r"^[a-z]{2,}(-[a-z]+)+-?\d+$", description="Cloud region, e.g. us-east-1 (AWS) or us-east5 (GCP)."
    )
    kubernetes_version: str = Field(
        pattern=r"^1\.\d{2}$", description='Kubernetes minor version of the cluster and nodes, e.g. "1.33".'
    )
    tags: Tags = Field(description="Tags applied to every taggable resource.")
    network: Network = Field(description="The VPC and who may reach the cluster API.")
    software_profiles: dict[Name, SoftwareProfile] = Field(
        min_length=1, description="Named, pinned version sets referenced by node pools."
    )
    node_pools: list[NodePool] = Field(min_length=1, description="The cluster's node pools.")
    buckets: list[Bucket] = Field(default_factory=list, description="Storage buckets by role (S3 or GCS).")
    inference_endpoint: InferenceEndpoint | None = Field(default=None, description="Public HTTPS inference endpoint.")
    secrets: list[Secret] = Field(
        default_factory=list, description="Secrets in the cloud's secret store (values never here)."
    )
    workloads: list[Workload] = Field(default_factory=list, description="Workloads and what each may touch.")
    audit: AuditTrail | None = Field(
        default=None, description="Keep an audit trail of who changed or read the stack's data, keys and secrets "
        "(required in prod by the rules).",
    )
    waivers: list[Waiver] = Field(default_factory=list, description="Accepted policy findings, with expiry.")
    kubernetes: KubernetesLayer | None = Field(
        default=None, description="The Kubernetes layer: add-ons, inference services, training templates, queues."
    )
    bare_metal: BareMetal | None = Field(
        default=None, description="Bare-metal accelerator host groups run with Ansible (`accelplane nodes`)."
    )
    air_gap: AirGap | None = Field(
        default=None,
        description="Air-gapped: the one mirror every artifact comes from (`accelplane bundle`); check flags others.",
    )
    budget: Budget | None = Field(
        default=None, description="Monthly budget in USD, judged by `check` (AP-COST-001) and alerted on by the cloud."
    )

    @property
    def resource_tags(self) -> dict[str, str]:
        return {
            "accelplane:platform": self.name,
            "accelplane:environment": self.environment.value,
            "owner": self.tags.owner,
            "cost-centre": self.tags.cost_centre,
            **self.tags.extra,
        }

    def secret_readers(self, secret: str) -> list[Workload]:
        return [workload for workload in self.workloads if secret in workload.secrets]

    def pool_profile(self, pool: NodePool) -> SoftwareProfile | None:
        return self.software_profiles.get(pool.software_profile) if pool.software_profile else None
