"""What Google Cloud can do for an inference service's resilience, checked against its declaration.

Cloud Armor rate limiting (`throttle`, or `rate_based_ban` with a ban duration) counts over one of a
fixed set of intervals (https://cloud.google.com/armor/docs/rate-limiting-overview). Google's health
checks pass on HTTP 200 only, with an optional response-body match (HealthCheckPolicy
`httpHealthCheck.response`). The GKE Gateway's HTTPRoute is the Gateway API standard channel of the
release GKE installs for the cluster's version (1.1.0 to 1.5.0, `gateway_api.py`): request and
backendRequest timeouts from 1.2.0, no retry field in any of them; Google's load balancer keeps its
own idle timeouts; Cloud Armor offers no body-size limit. A declared value the platform would ignore
is refused here, naming what is allowed.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.clouds.gcp import gateway_api
from accelplane.clouds.gcp.declaration import GcpPlatform
from accelplane.declaration.resilience import RateLimitAction

# Cloud Armor rate limiting (https://cloud.google.com/armor/docs/rate-limiting-overview): the threshold's
# interval is one of these seconds; a ban lasts banDurationSec.
ARMOR_INTERVALS = (10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700, 3600)
# A rule's rateLimitThreshold.count: "The minimum value is 1 and the maximum value is 1,000,000" for a
# throttle, "1 request and ... 10,000 requests" for a rate-based ban (Cloud Armor, Rate limiting
# overview, https://cloud.google.com/armor/docs/rate-limiting-overview, read 2026-12-06). The project
# accepted up to 2^31-1, the API field's type, before.
THROTTLE_MAX_COUNT = 1_000_000
BAN_MAX_COUNT = 10_000


# HTTPRoute timeouts joined the standard channel in Gateway API 1.2.0 (kubernetes-sigs/gateway-api#3210,
# "GEP-2257 Durations and HTTPRoute Timeouts are now standard"); on older CRDs the field is not in the schema.
TIMEOUTS_STANDARD_SINCE = "1.2.0"


def resilience_problems(platform: GcpPlatform) -> Iterator[Issue]:
    layer = platform.kubernetes
    if layer is None:
        return
    version = platform.gcp.gke_version if platform.gcp else None
    served = gateway_api.served(version) if version else None
    if platform.inference_endpoint is not None:  # only exposed services get an HTTPRoute
        yield from _route_timeouts(served, version, [s.name for s in layer.inference_services if s.expose])
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
            yield (*base, "retries"), _no_retries(served, version)
        check = service.health_check
        if check is not None and check.matcher not in (None, "200"):
            yield ((*base, "health_check", "matcher"),
                   "Google health checks pass on HTTP 200 only: remove matcher, or match the body with `response`")
        if service.max_request_body_bytes is not None:
            yield ((*base, "max_request_body_bytes"),
                   "Cloud Armor has no request-body size limit: remove it (the model server must refuse large "
                   "bodies itself)")


def _no_retries(served: gateway_api.ServedGatewayApi | None, version: str | None) -> str:
    """Why the route cannot carry the declared retries, naming the Gateway API release the cluster gets."""
    if served is not None and served.gateway_api is not None:
        release = f"GKE {version} installs Gateway API {served.gateway_api}, whose standard channel"
        if gateway_api.httproute_retry_in_standard(served.gateway_api):
            return (f"{release} has HTTPRoute retries, but accelplane does not render them yet; remove retries "
                    "(docs/endpoint-resilience.md)")
    else:
        release = f"the standard channel of every Gateway API release GKE installs ({gateway_api.recorded_range()})"
    return (f"the GKE Gateway cannot retry: {release} has no HTTPRoute retry field (experimental only, "
            f"{gateway_api.httproute_retry_source()}); remove retries (docs/endpoint-resilience.md)")


def _route_timeouts(served: gateway_api.ServedGatewayApi | None, version: str | None,
                    services: list[str]) -> Iterator[Issue]:
    """Every exposed service's route carries request timeouts (declared or the environment's default);
    a cluster whose Gateway API predates standard HTTPRoute timeouts would refuse or drop them."""
    if served is None or not services:
        return
    key = gcp_catalog.gke_version_key
    if served.gateway_api is not None and key(served.gateway_api) >= key(TIMEOUTS_STANDARD_SINCE):
        return
    release = f"Gateway API {served.gateway_api}" if served.gateway_api else "a Gateway API older than 1.1.0"
    first = gateway_api.first_gke_serving(TIMEOUTS_STANDARD_SINCE)
    yield (("gcp", "gke_version"),
           f"GKE {version} installs {release}, whose standard HTTPRoute has no timeouts (standard from "
           f"{TIMEOUTS_STANDARD_SINCE}); the routes of {', '.join(services)} set them: pin GKE {first} or newer "
           f"({served.source})")
