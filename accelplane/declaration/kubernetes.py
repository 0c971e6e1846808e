"""The Kubernetes layer: inference services with their backends and rollout, training templates, teams."""

from __future__ import annotations

from enum import StrEnum
from itertools import pairwise
from typing import ClassVar

from pydantic import Field, field_validator, model_validator

from accelplane.declaration.base import (
    Duration,
    ImageDigest,
    Model,
    Name,
    Timestamp,
)
from accelplane.declaration.parity import Parity
from accelplane.declaration.resilience import RateLimit, Retries, ServiceHealthCheck, Timeouts


class Autoscaling(Model):
    min_replicas: int = Field(
        ge=0,
        description="Fewest replicas (HPA minReplicas). 0 only for a backend at weight 0: no replicas and no "
        "HPA, so an idle canary or retired baseline holds no accelerators.",
    )
    max_replicas: int = Field(ge=1, description="Most replicas (HPA maxReplicas).")
    target_cpu_utilization: int = Field(default=70, ge=10, le=100, description="HPA CPU utilisation target, %.")

class Backend(Model):
    """One way of serving an inference service: a pool (so an accelerator type), an image and a weight."""

    name: Name
    node_pool: Name = Field(description="Inference node pool the backend's pods run on (its accelerator type).")
    image: ImageDigest
    weight: int = Field(ge=0, le=100, description="Share of the service's requests, %; a service's weights sum to 100.")
    software_profile: Name | None = Field(
        default=None,
        description="Profile the image was built against (CUDA, framework, ...), judged by the version matrix "
        "with the pool's driver; default: the pool's own profile.",
    )
    accelerators_per_replica: int = Field(default=1, ge=1, description="Accelerators each replica requests.")
    cpu: str = Field(default="4", pattern=r"^[0-9]+m?$", description="CPU request per replica.")
    memory: str = Field(default="16Gi", pattern=r"^[0-9]+(Mi|Gi)$", description="Memory request and limit.")
    autoscaling: Autoscaling = Field(description="Replica bounds and target.")

# The rollout gates' metrics source every cloud has: the cluster's Prometheus. A cloud may offer its own
# load balancer's metrics under a name of its own (CloudSupport.load_balancer_metrics); which names a stack
# may use is judged with its cloud (config/kubernetes_section_checks.py).
PROMETHEUS_METRICS = "prometheus"

class RolloutGates(Model):
    """What must hold for the canary over the gate window before its weight grows."""

    window: Duration = Field(default="10m", description="Window the gates read (ending now).")
    min_requests: int = Field(
        default=200, ge=1, description="Fewest canary requests in the window for a verdict; fewer: hold."
    )
    max_error_rate: float = Field(
        default=0.01, ge=0, le=1, description="Largest share of the canary's requests answered 5xx (0.01 = 1%)."
    )
    max_p99_ratio: float = Field(
        default=1.25, gt=0, description="Largest canary p99 latency as a multiple of the baseline's p99."
    )
    max_p99_seconds: float = Field(default=2.0, gt=0, description="Largest canary p99 latency, seconds.")
    max_throttled_rate: float = Field(
        default=0.05, ge=0, le=1, description="Largest share of the canary's requests answered 429 (0.05 = 5%): a "
        "canary shedding load looks healthy by its 5xx rate alone. Judged where the metrics count 429s "
        "(Prometheus); CloudWatch has no per-target-group 429 count.",
    )

class PrometheusMetrics(Model):
    """Where the model servers' request histogram is (the PodMonitor labels it per service and backend)."""

    histogram: str = Field(
        default="http_request_duration_seconds",
        pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$",
        description="Request-duration histogram the servers expose (its _bucket and _count series are read).",
    )
    status_label: str = Field(
        default="code", pattern=r"^[a-zA-Z_][a-zA-Z0-9_]*$", description="Label holding the HTTP status code."
    )

# Decisions `accelplane rollout` keeps in the stack file, newest last; older ones drop off.
ROLLOUT_HISTORY_LIMIT = 10


class RolloutAction(StrEnum):
    start = "start"
    advance = "advance"
    rollback = "rollback"
    abort = "abort"


class RolloutRecord(Model):
    """One decision `accelplane rollout` wrote: when, what, the weights it set and the gates it read."""

    at: Timestamp
    action: RolloutAction = Field(description="start | advance | rollback | abort: what was written.")
    weights: dict[Name, int] = Field(description="Backend -> weight, %, as written.")
    gates: dict[str, float] = Field(
        default_factory=dict, description="Gate -> the value observed over the window (none: not judged)."
    )
    reason: str | None = Field(default=None, max_length=400, description="Why, as the command said it.")


class Rollout(Model):
    """Progressive delivery from the baseline backend to the canary, step by step, gated on live metrics."""

    baseline: Name = Field(description="The backend serving today; latency is judged relative to it.")
    canary: Name | None = Field(
        default=None, description="The backend whose weight the steps grow; default: the only other backend."
    )
    steps: list[int] = Field(
        min_length=1, description="Canary weights, %, strictly increasing and ending at 100, e.g. [5, 25, 50, 100]."
    )
    bake: Duration = Field(default="15m", description="Least time a step runs before the next one.")
    gates: RolloutGates = Field(default_factory=RolloutGates, description="What must hold to advance.")
    metrics: str = Field(
        min_length=1,
        description="prometheus (the cluster's Prometheus, the request histogram per backend), or the stack's "
        "cloud's own load-balancer metrics where it has them (cloudwatch on AWS: the ALB's per-target-group metrics).",
    )
    prometheus: PrometheusMetrics = Field(
        default_factory=PrometheusMetrics, description="The histogram read when metrics is prometheus."
    )
    since: Timestamp | None = Field(
        default=None, description="When the current weights were written (`accelplane rollout` writes it)."
    )
    history: list[RolloutRecord] = Field(
        default_factory=list, max_length=ROLLOUT_HISTORY_LIMIT,
        description="The last decisions of `accelplane rollout advance|abort`, newest last (it writes them).",
    )
    parity: Parity | None = Field(
        default=None,
        description="The canary must answer the same, and as fast, as the baseline (`accelplane rollout parity`) "
        "before it takes more than the first step.",
    )

    @field_validator("steps")
    @classmethod
    def _steps(cls, value: list[int]) -> list[int]:
        if any(step < 1 or step > 100 for step in value):
            raise ValueError("expected weights between 1 and 100")
        if any(b <= a for a, b in pairwise(value)):
            raise ValueError("expected strictly increasing weights")
        if value[-1] != 100:
            raise ValueError("expected the last step to be 100 (the canary takes all traffic)")
        return value

class InferenceService(Model):
    """A served model. Either one backend written inline (node_pool, image, ...) or `backends` with weights."""

    name: Name
    workload: Name = Field(description="Inference workload whose IAM role and service account the pods use.")
    port: int = Field(default=8000, ge=1, le=65535, description="Container port; the endpoint's target_port.")
    expose: bool = Field(default=True, description="Route the endpoint's requests to the service.")
    path_prefix: str = Field(
        default="/",
        pattern=r"^/([A-Za-z0-9._~-]+/)*$",
        description="Request paths the endpoint sends to this service, e.g. /chat/; '/' is the default route. "
        "Exposed services need distinct prefixes.",
    )
    node_pool: Name | None = Field(default=None, description="One backend: the inference node pool it runs on.")
    image: ImageDigest | None = Field(default=None, description="One backend: its image.")
    accelerators_per_replica: int = Field(default=1, ge=1, description="One backend: accelerators per replica.")
    cpu: str = Field(default="4", pattern=r"^[0-9]+m?$", description="One backend: CPU request per replica.")
    memory: str = Field(default="16Gi", pattern=r"^[0-9]+(Mi|Gi)$", description="One backend: memory per replica.")
    autoscaling: Autoscaling | None = Field(default=None, description="One backend: replica bounds and target.")
    backends: list[Backend] | None = Field(
        default=None, min_length=1, description="Backends sharing the service's traffic by weight."
    )
    rollout: Rollout | None = Field(default=None, description="How traffic moves from the baseline to the canary.")
    rate_limit: RateLimit | None = Field(
        default=None, description="Requests per window per client; excess gets 429 (AWS WAF, Cloud Armor). No "
        "default: a prod service the endpoint exposes must declare one.",
    )
    timeouts: Timeouts | None = Field(
        default=None, description="Request, per-try and idle timeouts (defaults per environment)."
    )
    retries: Retries | None = Field(
        default=None, description="Retries at the load balancer: neither ALB nor the GKE Gateway (standard "
        "channel v1.2.1) can retry, so a declared policy is refused there (docs/endpoint-resilience.md).",
    )
    health_check: ServiceHealthCheck | None = Field(
        default=None, description="The load balancer's probe of this service's pods (default: the endpoint's)."
    )
    max_request_body_bytes: int | None = Field(
        default=None, ge=1, description="AWS: requests with a larger body are refused with 413 by AWS WAF (at most "
        "8192: ALB shows WAF the first 8 KB). Google Cloud: not offered.",
    )

    _INLINE: ClassVar[tuple[str, ...]] = (
        "node_pool", "image", "accelerators_per_replica", "cpu", "memory", "autoscaling",
    )

    @model_validator(mode="after")
    def _one_form(self) -> InferenceService:
        inline = [field for field in self._INLINE if field in self.model_fields_set]
        if self.backends is not None:
            if inline:
                raise ValueError(f"declare either backends or one inline backend, not both ({', '.join(inline)})")
            names = [backend.name for backend in self.backends]
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise ValueError(f"backend names must be unique: {', '.join(duplicates)}")
            total = sum(backend.weight for backend in self.backends)
            if total != 100:
                raise ValueError(f"expected the backends' weights to sum to 100, got {total}")
        else:
            missing = [f for f in ("node_pool", "image", "autoscaling") if getattr(self, f) is None]
            if missing:
                raise ValueError(
                    f"expected backends, or node_pool, image and autoscaling (missing: {', '.join(missing)})"
                )
            if self.rollout is not None:
                raise ValueError("a rollout needs backends: declare the baseline and the canary under backends")
        return self

    @property
    def serving_backends(self) -> tuple[Backend, ...]:
        """The backends, the inline form as one backend named after the service at weight 100."""
        if self.backends is not None:
            return tuple(self.backends)
        assert self.node_pool is not None and self.image is not None and self.autoscaling is not None
        return (
            Backend(
                name=self.name,
                node_pool=self.node_pool,
                image=self.image,
                weight=100,
                accelerators_per_replica=self.accelerators_per_replica,
                cpu=self.cpu,
                memory=self.memory,
                autoscaling=self.autoscaling,
            ),
        )

    def object_name(self, backend: Backend) -> str:
        """Kubernetes name of a backend's Deployment, Service, HPA and PDB; the inline backend keeps the
        service's own name, so a service that gains backends later does not rename what runs today."""
        return self.name if backend.name == self.name else f"{self.name}-{backend.name}"

    @property
    def canary(self) -> str | None:
        """The backend the rollout's steps move traffic to."""
        if self.rollout is None:
            return None
        if self.rollout.canary is not None:
            return self.rollout.canary
        others = [b.name for b in self.serving_backends if b.name != self.rollout.baseline]
        return others[0] if len(others) == 1 else None

class TrainingTemplate(Model):
    node_pool: Name = Field(description="Training node pool the job runs on.")
    workload: Name = Field(description="Training workload (service account, checkpoint prefix).")
    image: ImageDigest
    nodes: int | None = Field(default=None, ge=1, description="Nodes per job (default: the pool's max).")
    command: list[str] = Field(
        default_factory=lambda: ["torchrun", "train.py"], min_length=1, description="Entrypoint of each worker."
    )
    max_restarts: int = Field(default=3, ge=0, le=100, description="JobSet restarts, each resuming from a checkpoint.")

class Team(Model):
    name: Name
    namespace: Name = Field(description="Namespace whose LocalQueue feeds the team's ClusterQueue.")
    quotas: dict[Name, int] = Field(min_length=1, description="Nominal accelerators per node pool (flavor).")
    borrowing_limit: int = Field(default=0, ge=0, description="Accelerators per flavor the team may borrow.")

class KubernetesLayer(Model):
    addons_profile: Name = Field(description="Software profile holding the cluster add-on chart versions.")
    inference_services: list[InferenceService] = Field(default_factory=list, description="Inference services.")
    training_templates: list[TrainingTemplate] = Field(default_factory=list, description="Job templates per pool.")
    teams: list[Team] = Field(default_factory=list, description="Kueue teams: quotas per flavor, borrowing.")
