"""The stack declaration: one typed object per stack, under `accelplane:platform`.

Models are the contract (docs/conventions.md 5-7): strict (unknown keys rejected), frozen, every field
described, closed vocabularies as `StrEnum`. Single-field rules live here as validators;
rules that relate fields to each other or to a cloud's facts live in `accelplane.config.cross_field_checks`
(and its per-cloud modules), so each problem can name its own field path in the user's file.

One declaration whatever the cloud: concepts that mean the same keep one shape here (node pools,
buckets, secrets, workloads, endpoint, kubernetes, waivers); what only one cloud has lives in that
cloud's `declaration` module, which extends these models (`clouds/<cloud>/declaration.py`), and the
stack's `cloud:` picks the cloud's model when the file is loaded, so a key the stack's cloud does not
read is refused as an unknown key, by the model.

One module per section (`base`: the shared shapes and vocabularies; `network`, `software`, `pools`,
`storage`, `endpoint`, `workloads`, `kubernetes`, `platform`); this package is their one import.
"""

from accelplane.declaration.audit import AuditTrail
from accelplane.declaration.base import (
    BucketAccess,
    BucketRole,
    CapacityType,
    Cidr,
    Duration,
    Environment,
    ImageDigest,
    Model,
    Name,
    Purpose,
    TaintEffect,
    Timestamp,
    Version,
    WorkloadKind,
    duration_seconds,
)
from accelplane.declaration.endpoint import ClientAuth, HealthCheck, IdTokens, InferenceEndpoint
from accelplane.declaration.kubernetes import (
    PROMETHEUS_METRICS,
    ROLLOUT_HISTORY_LIMIT,
    Autoscaling,
    Backend,
    InferenceService,
    KubernetesLayer,
    PrometheusMetrics,
    Rollout,
    RolloutAction,
    RolloutGates,
    RolloutRecord,
    Team,
    TrainingTemplate,
)
from accelplane.declaration.network import Network, Tags
from accelplane.declaration.parity import (
    GoldenSet,
    OutputKind,
    Parity,
    ParityCompare,
    ParityPerformance,
    ParityProtocol,
)
from accelplane.declaration.platform import AirGap, Platform
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
    "PROMETHEUS_METRICS",
    "ROLLOUT_HISTORY_LIMIT",
    "AirGap",
    "AuditTrail",
    "Autoscaling",
    "Backend",
    "Bucket",
    "BucketAccess",
    "BucketGrant",
    "BucketRole",
    "Capacity",
    "CapacityType",
    "Cidr",
    "ClientAuth",
    "Duration",
    "EnforcementMode",
    "Environment",
    "GoldenSet",
    "HealthCheck",
    "IdTokens",
    "ImageDigest",
    "InferenceEndpoint",
    "InferenceService",
    "KernelModule",
    "KubernetesLayer",
    "LifecycleRule",
    "LifecycleTransition",
    "Model",
    "Name",
    "Network",
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
