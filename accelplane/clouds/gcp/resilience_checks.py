"""What Google Cloud can do for an inference service's resilience, checked against its declaration.

Cloud Armor rate limiting (`throttle`, or `rate_based_ban` with a ban duration) counts over one of a
fixed set of intervals (https://cloud.google.com/armor/docs/rate-limiting-overview). Google's health
checks pass on HTTP 200 only, with an optional response-body match (HealthCheckPolicy
`httpHealthCheck.response`). The GKE Gateway's HTTPRoute (Gateway API standard channel v1.2.1, the
CRDs GKE ships) has request and backendRequest timeouts but no retry field, and Google's load
balancer keeps its own idle timeouts; Cloud Armor offers no body-size limit. A declared value the
platform would ignore is refused here, naming what is allowed.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.gcp.declaration import GcpPlatform
from accelplane.declaration.resilience import ARMOR_INTERVALS, RateLimitAction

# A rule's rateLimitThreshold.count: "The minimum value is 1 and the maximum value is 1,000,000" for a
# throttle, "1 request and ... 10,000 requests" for a rate-based ban (Cloud Armor, Rate limiting
# overview, https://cloud.google.com/armor/docs/rate-limiting-overview, read 2026-12-06). The project
# accepted up to 2^31-1, the API field's type, before.
THROTTLE_MAX_COUNT = 1_000_000
BAN_MAX_COUNT = 10_000


def resilience_problems(platform: GcpPlatform) -> Iterator[Issue]:
    layer = platform.kubernetes
    if layer is None:
        return
    for index, service in enumerate(layer.inference_services):
        base = ("kubernetes", "inference_services", index)
        limit = service.rate_limit
        if limit is not None:
            if limit.window_seconds not in ARMOR_INTERVALS:
                yield ((*base, "rate_limit", "window_seconds"),
                       f"Cloud Armor counts over {', '.join(map(str, ARMOR_INTERVALS))} seconds, got "
                       f"{limit.window_seconds}")
            banned = limit.action is RateLimitAction.ban
            most = BAN_MAX_COUNT if banned else THROTTLE_MAX_COUNT
            if limit.requests > most:
                kind = "a rate-based ban's (action: ban)" if banned else "a throttle's"
                yield ((*base, "rate_limit", "requests"),
                       f"Cloud Armor counts at most {most:,} requests for {kind} threshold, got {limit.requests:,} "
                       "(https://cloud.google.com/armor/docs/rate-limiting-overview)")
        if service.retries is not None:
            yield ((*base, "retries"),
                   "the GKE Gateway cannot retry: HTTPRoute has no retry field in the Gateway API standard channel "
                   "(v1.2.1) GKE ships; remove retries (docs/endpoint-resilience.md)")
        check = service.health_check
        if check is not None and check.matcher not in (None, "200"):
            yield ((*base, "health_check", "matcher"),
                   "Google health checks pass on HTTP 200 only: remove matcher, or match the body with `response`")
        if service.max_request_body_bytes is not None:
            yield ((*base, "max_request_body_bytes"),
                   "Cloud Armor has no request-body size limit: remove it (the model server must refuse large "
                   "bodies itself)")
