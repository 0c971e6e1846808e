"""boto3 clients for `verify`: read-only, retried with backoff, every API call counted.

- **Read-only by construction.** A `before-call` hook refuses any operation that is not a
  `Describe*`, `List*`, `Get*` or `Head*` call, and refuses `GetSecretValue` /
  `BatchGetSecretValue` outright: verify never reads a secret's value, whatever a later change asks.
- **Retries.** botocore's `adaptive` retry mode (exponential backoff with jitter on throttling and
  transient errors, plus a client-side token bucket that slows down when AWS throttles), up to
  `max_attempts` attempts per call. Streaming reads of checkpoint objects, which botocore does not
  retry once the body is flowing, are retried by `accelplane.verify.checkpoint`.
- **Counting.** Hooks count each operation (`service.Operation`), the retries AWS made us do
  (`ResponseMetadata.RetryAttempts`) and the calls that ended in an error; the bench prints them.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import boto3
from botocore.config import Config

READ_ONLY_PREFIXES = ("Describe", "List", "Get", "Head")
# Read operations that return secret material: never called, by construction.
FORBIDDEN_OPERATIONS = frozenset({"GetSecretValue", "BatchGetSecretValue"})


class ReadOnlyError(RuntimeError):
    """A code path tried to call an AWS operation that changes or reveals something."""


class ApiCalls:
    """Thread-safe counts of API calls by `service.Operation`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.retries: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()

    def record(self, key: str, *, retries: int = 0, error: bool = False) -> None:
        with self._lock:
            self.calls[key] += 1
            if retries:
                self.retries[key] += retries
            if error:
                self.errors[key] += 1

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {
                "total": sum(self.calls.values()),
                "retries": sum(self.retries.values()),
                "errors": sum(self.errors.values()),
                "by_operation": dict(sorted(self.calls.items())),
            }


def check_read_only(operation: str) -> None:
    if operation in FORBIDDEN_OPERATIONS or not operation.startswith(READ_ONLY_PREFIXES):
        raise ReadOnlyError(f"accelplane verify is read-only: refusing to call {operation}")


class AwsClients:
    """One client per service, shared by the collector threads (boto3 clients are thread-safe)."""

    def __init__(
        self,
        region: str,
        *,
        endpoint_url: str | None = None,
        profile: str | None = None,
        max_attempts: int = 10,
        concurrency: int = 8,
        session: boto3.Session | None = None,
    ) -> None:
        self.region = region
        self.endpoint_url = endpoint_url
        self.session = session or boto3.Session(profile_name=profile, region_name=region)
        self.config = Config(
            region_name=region,
            retries={"mode": "adaptive", "max_attempts": max_attempts},
            connect_timeout=10,
            read_timeout=60,
            max_pool_connections=max(10, concurrency * 2),
            user_agent_extra="accelplane-verify",
            # A local endpoint (moto, LocalStack) has no per-bucket DNS names.
            s3={"addressing_style": "path"} if endpoint_url else None,
        )
        # The first call (who am I) fails fast: an unreachable endpoint is a usage problem, not
        # something to retry ten times with backoff.
        self.quick_config = self.config.merge(
            Config(retries={"mode": "standard", "max_attempts": 2}, connect_timeout=5, read_timeout=20)
        )
        self.calls = ApiCalls()
        self._clients: dict[tuple[str, bool], Any] = {}
        self._lock = threading.Lock()

    def __call__(self, service: str, *, quick: bool = False) -> Any:
        with self._lock:
            client = self._clients.get((service, quick))
            if client is None:
                config = self.quick_config if quick else self.config
                client = self.session.client(service, endpoint_url=self.endpoint_url, config=config)
                events = client.meta.events
                events.register("before-call", self._before_call)
                events.register("after-call", self._after_call)
                events.register("after-call-error", self._after_call_error)
                self._clients[(service, quick)] = client
            return client

    def _before_call(self, model: Any, context: dict[str, Any], **_: Any) -> None:
        check_read_only(model.name)
        context["accelplane_operation"] = f"{model.service_model.service_name}.{model.name}"

    def _after_call(self, model: Any, parsed: dict[str, Any], **_: Any) -> None:
        retries = (parsed.get("ResponseMetadata") or {}).get("RetryAttempts", 0)
        error = "Error" in parsed
        self.calls.record(f"{model.service_model.service_name}.{model.name}", retries=retries or 0, error=error)

    def _after_call_error(self, context: dict[str, Any], exception: Exception, **_: Any) -> None:
        # A connection-level failure after all retries: still a call we made.
        self.calls.record(context.get("accelplane_operation", "unknown"), error=True)
