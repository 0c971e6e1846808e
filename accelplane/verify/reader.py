"""What `accelplane verify` asks of a cloud: a read-only session on the live platform.

`LiveReader.connect()` checks the credentials and reaches the cloud's API (every way that fails is
an input problem, exit 2, naming the option or endpoint); the `LiveSession` then reads the live
platform once (`read()`: the declared platform, the live view in the declared shape, and what could
not be read) and answers the cloud-specific parts of the checks: the drift mapping, live state no
declaration holds, where to probe the endpoint and which bucket holds the checkpoints. Everything
else (drift, the policy rules on the live view, the probe, the drill, the report) is the same on
every cloud (`accelplane.verify.verification`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from accelplane.cloud_support import Capability, Connection, required_facet
from accelplane.config.loader import StackConfig
from accelplane.engine.graph import OfflineGraph
from accelplane.verify.checkpoint import CheckpointStore
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.drift import DriftMapping
from accelplane.verify.endpoint_policy import EndpointPolicy
from accelplane.verify.live import LiveView
from accelplane.verify.results import CheckResult, Subject


@dataclass(frozen=True)
class VerifyOptions:
    connection: Connection = field(default_factory=Connection)  # the stack's cloud's connection options
    probes: int = 5
    timeout: float | None = None  # per probe; default: the declared health check's timeout
    probe_url: str | None = None  # default: the live load balancer's address and the health check path
    probe_http_url: str | None = None  # the HTTP->HTTPS redirect's URL; default: the probe URL's host on port 80
    ca_bundle: str | None = None
    # What the probes present where the endpoint authenticates clients (files; the token is never printed).
    probe_token_file: str | None = None
    probe_client_cert: str | None = None
    probe_client_key: str | None = None
    checkpoint_max_age: timedelta | None = None
    checkpoint_drill: str = "download"  # download | checksum | off
    concurrency: int = 8
    max_attempts: int = 10
    today: date | None = None
    policy_levels: Mapping[str, str] = field(default_factory=dict)  # rule id -> level (`--policy-config`)


@dataclass
class LiveRead:
    declared: DeclaredPlatform
    view: LiveView
    read_errors: list[CheckResult] = field(default_factory=list)  # one per call that failed


@dataclass(frozen=True)
class ProbeTarget:
    url: str | None  # None: nothing live to probe (the message says why)
    subject: Subject
    missing: str = ""


class LiveSession(ABC):
    account: str  # the account or project the credentials belong to
    region: str
    endpoint: str  # the API endpoint the calls went to
    drift: DriftMapping

    @abstractmethod
    def read(self) -> LiveRead:
        """The live platform, read once with the fewest calls."""

    @abstractmethod
    def state_results(self, read: LiveRead, now: datetime) -> list[CheckResult]:
        """Live state go-live depends on that no declaration holds (health, key state, rotation)."""

    @abstractmethod
    def probe_target(self, read: LiveRead, listener_port: int, health_path: str) -> ProbeTarget:
        """Where the inference endpoint answers: the live load balancer's address."""

    def endpoint_policy(self, read: LiveRead) -> EndpointPolicy:
        """The TLS minimum and redirect the declaration promises for the endpoint (none known by default)."""
        spec = read.declared.platform.inference_endpoint
        return EndpointPolicy(None, "the declaration", bool(spec and spec.http_redirect))

    @abstractmethod
    def checkpoint_store(self, read: LiveRead, options: VerifyOptions) -> tuple[CheckpointStore | None, Subject]:
        """The live checkpoints bucket (None: not found live; drift says why) and its subject."""

    @abstractmethod
    def api_calls(self) -> dict[str, object]:
        """Calls made per operation, retries and errors (the report's and the bench's figures)."""


class LiveReader(ABC):
    @abstractmethod
    def option_problems(self, options: VerifyOptions) -> list[tuple[str, str]]:
        """(option, problem) for connection options the cloud refuses (an endpoint its SDK cannot use)."""

    @abstractmethod
    def connect(self, stack: StackConfig, graph: OfflineGraph, options: VerifyOptions) -> LiveSession:
        """A session for the stack's account or project and region; `InputError` when it cannot be had."""


VERIFY_GROUP = "accelplane.verify"


@dataclass(frozen=True)
class CloudVerify:
    """A cloud's live verification: its `accelplane.verify` entry point (an optional facet)."""

    cloud: str
    reader: Callable[[], LiveReader]  # its LiveReader, made per command


def live_reader(cloud: str) -> LiveReader:
    """What `accelplane verify` reads `cloud`'s live platform with; `NotSupportedError` without one."""
    return required_facet(VERIFY_GROUP, cloud, CloudVerify, Capability.verify).reader()
