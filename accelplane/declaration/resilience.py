"""How an inference service holds under load, faults and attack: its rate limit, timeouts, retries,
health check and largest request body (per service, `inference_services[].…`).

The shapes and the limits every platform shares are checked here; what one platform accepts (AWS
WAF's evaluation windows, Cloud Armor's intervals, a ban, retries at all) is checked by the cloud's
declaration checks, which name the allowed set. Timeouts and health checks have defaults per
environment (`effective_*`); a rate limit has none: its numbers follow from the model's capacity, so
a prod endpoint must declare one (rule AP-LB-010 / AP-GLB-010).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, model_validator

from accelplane.declaration.base import Environment, Model
from accelplane.declaration.endpoint import HealthCheck

_HEADER = r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$"  # an HTTP field name (RFC 9110 token), bounded


class RateLimitKey(StrEnum):
    """What a client is counted by."""

    source_ip = "source_ip"  # the connection's address
    forwarded_ip = "forwarded_ip"  # the first address of X-Forwarded-For (behind another proxy or CDN)
    header = "header"  # a request header's value, e.g. an API key


class RateLimitAction(StrEnum):
    reject = "reject"  # answer 429 while the client is over the limit (both clouds)
    ban = "ban"  # Cloud Armor only: answer 429 for ban_seconds once the client went over


class EnforcementMode(StrEnum):
    enforce = "enforce"
    count_only = "count"  # only count (AWS WAF Count, Cloud Armor preview): to size a limit, never in prod


class RateLimit(Model):
    requests: int = Field(ge=1, description="Requests a client may send per window.")
    window_seconds: int = Field(
        ge=1, description="The window: AWS WAF 60, 120, 300 or 600; Cloud Armor 10, 30, 60, 120, 180, 240, 300, "
        "600, 900, 1200, 1800, 2700 or 3600.",
    )
    key: RateLimitKey = Field(
        default=RateLimitKey.source_ip,
        description="Counted per source_ip, forwarded_ip (first X-Forwarded-For address) or header.",
    )
    header: str | None = Field(
        default=None, pattern=_HEADER, description="With key: header, the request header whose value is the client "
        "(e.g. X-Api-Key).",
    )
    action: RateLimitAction = Field(
        default=RateLimitAction.reject, description="reject: 429 while over the limit; ban: 429 for ban_seconds "
        "(Cloud Armor only: AWS WAF has no ban).",
    )
    # Cloud Armor's banDurationSec. Whether Google accepts only a fixed set of values could not be
    # confirmed from here (2026-12-07): the Compute API reference (SecurityPolicyRuleRateLimitOptions),
    # the provider's docs and the rate-limiting overview's excerpts read here give its meaning and no
    # value set. So the range stays a day at most and the value is not checked against a set (confidence:
    # unconfirmed; https://cloud.google.com/compute/docs/reference/rest/v1/securityPolicies).
    ban_seconds: int | None = Field(default=None, ge=1, le=86400, description="With action: ban, how long.")
    exempt_paths: list[str] = Field(
        default_factory=list, max_length=5,
        description="Path prefixes never counted (e.g. /v1/health); at most 5.",
    )
    mode: EnforcementMode = Field(default=EnforcementMode.enforce, description="enforce, or count only (not in prod).")

    @model_validator(mode="after")
    def _consistent(self) -> RateLimit:
        if (self.key is RateLimitKey.header) != (self.header is not None):
            raise ValueError("key: header needs `header` (the header's name), and `header` needs key: header")
        if (self.action is RateLimitAction.ban) != (self.ban_seconds is not None):
            raise ValueError("action: ban needs ban_seconds, and ban_seconds needs action: ban")
        bad = [p for p in self.exempt_paths if not p.startswith("/") or any(c in p for c in " *?'\"\\")]
        if bad:
            raise ValueError(f"exempt_paths are path prefixes starting with '/' without wildcards or quotes: {bad}")
        return self


class Timeouts(Model):
    """Request timeouts of one service. The idle timeout of a connection belongs to the load balancer,
    shared by every service: `inference_endpoint.idle_timeout_seconds` (AWS; Google's is fixed)."""

    request_seconds: int | None = Field(
        default=None, ge=1, le=3600, description="Whole request, retries included (GKE: HTTPRoute timeouts.request). "
        "Default per environment: dev 600, staging 300, prod 120.",
    )
    backend_request_seconds: int | None = Field(
        default=None, ge=1, le=3600, description="One try at a backend (GKE: HTTPRoute timeouts.backendRequest and "
        "the backend service timeout). Default: the request timeout.",
    )

    @model_validator(mode="after")
    def _try_within_request(self) -> Timeouts:
        if (self.request_seconds is not None and self.backend_request_seconds is not None
                and self.backend_request_seconds > self.request_seconds):
            raise ValueError("backend_request_seconds cannot be longer than request_seconds")
        return self


class Retries(Model):
    attempts: int = Field(ge=1, le=5, description="Retries after the first try.")
    on: list[int] = Field(
        default_factory=lambda: [502, 503, 504], min_length=1, description="Status codes retried (5xx only)."
    )
    per_try_timeout_seconds: int | None = Field(
        default=None, ge=1, le=3600, description="Timeout of each try: required (retries without it storm)."
    )

    @model_validator(mode="after")
    def _safe(self) -> Retries:
        if self.per_try_timeout_seconds is None:
            raise ValueError("a retry policy needs per_try_timeout_seconds: without it a slow backend is retried "
                             "until the whole request times out (a retry storm)")
        bad = [code for code in self.on if not 500 <= code <= 599]
        if bad:
            raise ValueError(f"retries are for 5xx answers only, got {bad}")
        return self


class ServiceHealthCheck(Model):
    """The load balancer's probe of one service's pods (the endpoint's `health_check` where not given)."""

    path: str = Field(pattern=r"^/[A-Za-z0-9/._~%!$&'()*+,;=:@-]*$", max_length=1024, description="HTTP path probed.")
    matcher: str | None = Field(
        default=None, pattern=r"^[2-4][0-9]{2}((-|,)[2-4][0-9]{2})*$",
        description="AWS: status codes counted healthy (200, 200-299, 200,204). Google's probes pass on 200 only.",
    )
    response: str | None = Field(
        default=None, min_length=1, max_length=1024, description="Google Cloud: text the response body must contain "
        "(HealthCheckPolicy httpHealthCheck.response). AWS has no body match.",
    )
    interval_seconds: int | None = Field(default=None, ge=5, le=300, description="Seconds between probes.")
    timeout_seconds: int | None = Field(default=None, ge=2, le=120, description="Probe timeout.")
    healthy_threshold: int | None = Field(default=None, ge=2, le=10, description="Successes to mark healthy.")
    unhealthy_threshold: int | None = Field(default=None, ge=2, le=10, description="Failures to mark unhealthy.")


# Defaults per environment: a dev endpoint tolerates a slow first compile on a new accelerator; prod
# answers or fails fast enough for a client to retry elsewhere.
REQUEST_TIMEOUT_DEFAULTS = {Environment.dev: 600, Environment.staging: 300, Environment.prod: 120}


def effective_request_timeout(timeouts: Timeouts | None, environment: Environment) -> int:
    declared = timeouts.request_seconds if timeouts else None
    return declared if declared is not None else REQUEST_TIMEOUT_DEFAULTS[environment]


def effective_backend_timeout(timeouts: Timeouts | None, environment: Environment) -> int:
    declared = timeouts.backend_request_seconds if timeouts else None
    return declared if declared is not None else effective_request_timeout(timeouts, environment)


def effective_health_check(endpoint: HealthCheck, service: ServiceHealthCheck | None) -> HealthCheck:
    """The endpoint's health check with the service's declared fields over it (`response` aside)."""
    if service is None:
        return endpoint
    fields = ("path", "matcher", "interval_seconds", "timeout_seconds", "healthy_threshold", "unhealthy_threshold")
    return endpoint.model_copy(update={f: getattr(service, f) for f in fields if getattr(service, f) is not None})
