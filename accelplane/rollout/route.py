"""What `accelplane rollout` asks of a cloud: a service's live route and the cloud's own metrics.

A `LiveRoute` is where the cloud splits one service's requests between its backends: the AWS ALB's
HTTPS listener or listener rule, found by the tags the program writes; on GKE the service's
HTTPRoute behind the Gateway. It reads the live weights,
sets them (the one write of `--apply-now`), and reads each backend's traffic from the cloud's own
metrics (`rollout.metrics: cloudwatch`). Prometheus, the other metrics source, is the same on every
cloud (`prometheus.py`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from accelplane.cloud_support import Capability, Connection, cloud_support, offers, required_facet
from accelplane.declaration import InferenceService, Platform
from accelplane.rollout.traffic import Traffic


class RouteError(Exception):
    """The service's live route cannot be found, read or changed (the message says why)."""


@dataclass(frozen=True)
class RouteRequest:
    platform: Platform
    service: InferenceService
    connection: Connection = field(default_factory=Connection)  # the stack's cloud's connection options
    kube_context: str | None = None  # GKE: a kubeconfig context instead of Google credentials


class LiveRoute(ABC):
    @property
    @abstractmethod
    def where(self) -> str:
        """The live object that routes the service (`rule arn:…`), for messages."""

    @abstractmethod
    def weights(self) -> dict[str, int]:
        """Each backend's live share of the route's requests, %."""

    def state(self) -> str | None:
        """What the cloud reports of the route beyond its weights (whether it is served); None: nothing."""
        return None

    @abstractmethod
    def apply(self, weights: dict[str, int]) -> None:
        """Set the live weights (nothing else); `RouteError` when refused, leaving them as they were."""

    @abstractmethod
    def traffic(self, backends: list[str], window_seconds: int, now: datetime) -> Traffic:
        """Per backend: requests, 5xx and latency over the window, from the cloud's own metrics."""


ROUTE_GROUP = "accelplane.routes"


@dataclass(frozen=True)
class CloudRoute:
    """How a cloud reads and sets a service's live traffic split: its `accelplane.routes` entry point."""

    cloud: str
    route: Callable[[RouteRequest], LiveRoute]  # `RouteError` when the route cannot be found or read


def has_live_route(cloud: str) -> bool:
    """Whether `cloud` can read and set live weights (without loading its route)."""
    return cloud_support(cloud).supports(Capability.live_weights) and offers(ROUTE_GROUP, cloud)


def live_route(request: RouteRequest) -> LiveRoute:
    """The service's live route on the stack's cloud; `NotSupportedError` where the cloud has none."""
    cloud = request.platform.cloud
    return required_facet(ROUTE_GROUP, cloud, CloudRoute, Capability.live_weights).route(request)
