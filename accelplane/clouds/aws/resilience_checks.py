"""What AWS can do for an inference service's resilience, checked against its declaration.

AWS WAF (on the ALB) rate-limits: Limit 10..2,000,000,000 per EvaluationWindowSec 60, 120, 300 or 600
(https://docs.aws.amazon.com/waf/latest/APIReference/API_RateBasedStatement.html), with no ban: a
client over the limit is blocked only while it stays over. The ALB has no request or per-try timeout
(only the idle timeout of a silent connection), no retries and no body match in its health check;
and it shows WAF at most the first 8 KB of a body. A declared value the platform would ignore is
refused here with the allowed set, so nothing in a stack file silently does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.aws.declaration import AwsPlatform
from accelplane.clouds.aws.waf_vocabulary import MANAGED_RULE_GROUPS
from accelplane.declaration import RateLimitAction
from accelplane.suggest import did_you_mean

# AWS WAF rate-based statement (https://docs.aws.amazon.com/waf/latest/APIReference/API_RateBasedStatement.html):
# Limit 10..2,000,000,000 requests per EvaluationWindowSec of 60, 120, 300 or 600.
WAF_LIMIT_MIN = 10
WAF_LIMIT_MAX = 2_000_000_000
WAF_WINDOWS = (60, 120, 300, 600)
# ALB inspects at most the first 8 KB of a request body for AWS WAF (oversize handling decides the rest):
# https://docs.aws.amazon.com/waf/latest/developerguide/web-acl-setting-body-inspection-limit.html
ALB_BODY_INSPECTION_BYTES = 8192


def resilience_problems(platform: AwsPlatform) -> Iterator[Issue]:
    endpoint = platform.inference_endpoint
    if endpoint is not None:
        for index, group in enumerate(endpoint.waf_managed_rule_groups):
            if group not in MANAGED_RULE_GROUPS:
                yield (("inference_endpoint", "waf_managed_rule_groups", index),
                       f"unknown AWS managed rule group {group!r}{did_you_mean(group, MANAGED_RULE_GROUPS)} "
                       f"(expected one of: {', '.join(MANAGED_RULE_GROUPS)})")
    layer = platform.kubernetes
    if layer is None:
        return
    for index, service in enumerate(layer.inference_services):
        base = ("kubernetes", "inference_services", index)
        limit = service.rate_limit
        if limit is not None:
            if not WAF_LIMIT_MIN <= limit.requests <= WAF_LIMIT_MAX:
                yield ((*base, "rate_limit", "requests"),
                       f"AWS WAF rate limits are {WAF_LIMIT_MIN:,} to {WAF_LIMIT_MAX:,} requests per window, "
                       f"got {limit.requests:,}")
            if limit.window_seconds not in WAF_WINDOWS:
                yield ((*base, "rate_limit", "window_seconds"),
                       f"AWS WAF counts over {', '.join(map(str, WAF_WINDOWS))} seconds, got {limit.window_seconds}")
            if limit.action is RateLimitAction.ban:
                yield ((*base, "rate_limit", "action"),
                       "AWS WAF has no ban (a client is blocked only while over the limit): use action: reject")
        if service.retries is not None:
            yield ((*base, "retries"),
                   "an ALB never retries a request: remove retries (the client or the model server's caller retries; "
                   "docs/endpoint-resilience.md)")
        if service.timeouts is not None:
            for field in ("request_seconds", "backend_request_seconds"):
                if getattr(service.timeouts, field) is not None:
                    yield ((*base, "timeouts", field),
                           "an ALB has no request timeout, only the idle timeout of a silent connection "
                           "(inference_endpoint.idle_timeout_seconds): remove it and set the model server's own")
        check = service.health_check
        if check is not None and check.response is not None:
            yield ((*base, "health_check", "response"),
                   "ALB health checks match status codes only: use health_check.matcher")
        body = service.max_request_body_bytes
        if body is not None and body > ALB_BODY_INSPECTION_BYTES:
            yield ((*base, "max_request_body_bytes"),
                   f"an ALB shows AWS WAF at most the first {ALB_BODY_INSPECTION_BYTES} bytes of a body, so larger "
                   f"limits cannot be enforced there: use at most {ALB_BODY_INSPECTION_BYTES}")
