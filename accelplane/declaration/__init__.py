"""The stack declaration: one typed object per stack, under `accelplane:platform`.

Models are the contract (docs/conventions.md 5-7): strict (unknown keys rejected), frozen, every field
described, closed vocabularies as `StrEnum`. Single-field rules live here as validators;
rules that relate fields to each other or to a cloud's facts live in `accelplane.config.checks`
(and its per-cloud modules), so each problem can name its own field path in the user's file.

One declaration for two clouds (`cloud: aws | gcp`): concepts that mean the same keep one shape
(node pools, buckets, secrets, workloads, endpoint, kubernetes, waivers); keys exist only where the
clouds really differ (`gcp:` project settings, `network.vpc` ranges, a GCP reservation name, the
endpoint's certificate source), and the checks refuse a key the stack's cloud does not use.

One module per section (`base`: the shared shapes and vocabularies; `network`, `software`, `pools`,
`storage`, `endpoint`, `workloads`, `kubernetes`, `platform`); this package is their one import.
"""

from accelplane.declaration.base import (
    BucketAccess,
    BucketRole,
    CapacityType,
    Cidr,
    Cloud,
    Duration,
    Environment,
    GpuDriver,
    ImageDigest,
    Model,
    Name,
    NatMode,
    Purpose,
    ReleaseChannel,
    SslProfile,
    TaintEffect,
    Timestamp,
    Version,
    WorkloadKind,
    duration_seconds,
)
from accelplane.declaration.endpoint import HealthCheck, InferenceEndpoint
from accelplane.declaration.kubernetes import (
    ROLLOUT_HISTORY_LIMIT,
    Autoscaling,
    Backend,
    InferenceService,
    KubernetesLayer,
    MetricsSource,
    PrometheusMetrics,
    Rollout,
    RolloutAction,
    RolloutGates,
    RolloutRecord,
    Team,
    TrainingTemplate,
)
from accelplane.declaration.network import ExistingVpc, GcpVpc, Network, NewVpc, Tags
from accelplane.declaration.parity import (
    GoldenSet,
    OutputKind,
    Parity,
    ParityCompare,
    ParityPerformance,
    ParityProtocol,
)
from accelplane.declaration.platform import AirGap, GcpSettings, Platform
from accelplane.declaration.pools import Capacity, NodePool, Scaling, Taint
from accelplane.declaration.resilience import (
    EnforcementMode,
    RateLimit,
    RateLimitAction,
    RateLimitKey,
    Retries,
    ServiceHealthCheck,
    Timeouts,
)
from accelplane.declaration.software import SoftwareProfile
from accelplane.declaration.storage import Bucket, LifecycleRule, LifecycleTransition
from accelplane.declaration.workloads import BucketGrant, RunAs, Secret, Waiver, Workload
from accelplane.matrix.schema import KernelModule

__all__ = [
    "ROLLOUT_HISTORY_LIMIT",
    "AirGap",
    "Autoscaling",
    "Backend",
    "Bucket",
    "BucketAccess",
    "BucketGrant",
    "BucketRole",
    "Capacity",
    "CapacityType",
    "Cidr",
    "Cloud",
    "Duration",
    "EnforcementMode",
    "Environment",
    "ExistingVpc",
    "GcpSettings",
    "GcpVpc",
    "GoldenSet",
    "GpuDriver",
    "HealthCheck",
    "ImageDigest",
    "InferenceEndpoint",
    "InferenceService",
    "KernelModule",
    "KubernetesLayer",
    "LifecycleRule",
    "LifecycleTransition",
    "MetricsSource",
    "Model",
    "Name",
    "NatMode",
    "Network",
    "NewVpc",
    "NodePool",
    "OutputKind",
    "Parity",
    "ParityCompare",
    "ParityPerformance",
    "ParityProtocol",
    "Platform",
    "PrometheusMetrics",
    "Purpose",
    "RateLimit",
    "RateLimitAction",
    "RateLimitKey",
    "ReleaseChannel",
    "Retries",
    "Rollout",
    "RolloutAction",
    "RolloutGates",
    "RolloutRecord",
    "RunAs",
    "Scaling",
    "Secret",
    "ServiceHealthCheck",
    "SoftwareProfile",
    "SslProfile",
    "Tags",
    "Taint",
    "TaintEffect",
    "Team",
    "Timeouts",
    "Timestamp",
    "TrainingTemplate",
    "Version",
    "Waiver",
    "Workload",
    "WorkloadKind",
    "duration_seconds",
]
