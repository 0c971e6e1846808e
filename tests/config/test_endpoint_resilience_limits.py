"""An inference service's rate limit, timeouts, retries, health check and body limit, refused at
validation where the platform would not accept them (the allowed set named), accepted at the edges."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelplane.clouds.gcp import gateway_api
from accelplane.errors import InputError
from tests.support.stack_files import edit_problems, edited_stack

AWS_LIMIT = "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/v1/health]}\n"
GCP_LIMIT = "          rate_limit: {requests: 600, window_seconds: 60, key: source_ip, exempt_paths: [/healthz]}\n"
# What the example stacks declare after the rate limit (replaced with it, so a test's lines are the only ones).
AWS_AFTER = '          health_check: {path: /v1/health, matcher: "200"}\n'
GCP_AFTER = ("          timeouts: {request_seconds: 120, backend_request_seconds: 90}\n"
             "          health_check: {path: /healthz, response: ok}\n")


def _aws(tmp_path: Path, lines: str) -> list[tuple[str, str]]:
    return _problems(tmp_path, "prod", AWS_LIMIT + AWS_AFTER, lines)


def _gcp(tmp_path: Path, lines: str) -> list[tuple[str, str]]:
    return _problems(tmp_path, "tpu-prod", GCP_LIMIT + GCP_AFTER, lines)


def _problems(tmp_path: Path, stack: str, old: str, new: str) -> list[tuple[str, str]]:
    return edit_problems(tmp_path, (old, new), stack=stack)


def _limit(**fields: object) -> str:
    inner = ", ".join(f"{k}: {v}" for k, v in fields.items())
    return f"          rate_limit: {{{inner}}}\n"


# AWS WAF: 10..2,000,000,000 per 60, 120, 300 or 600 seconds.
@pytest.mark.parametrize(("requests", "window", "ok"), [
    (10, 60, True), (9, 60, False), (2_000_000_000, 600, True), (2_000_000_001, 600, False),
    (100, 120, True), (100, 300, True), (100, 59, False), (100, 601, False), (100, 10, False),
])
def test_aws_waf_limits_and_windows(tmp_path: Path, requests: int, window: int, ok: bool) -> None:
    found = _aws(tmp_path, _limit(requests=requests, window_seconds=window))
    assert (found == []) is ok, found
    if not ok:
        [(_, message)] = found
        assert "10 to 2,000,000,000" in message or "60, 120, 300, 600" in message


# Cloud Armor: intervals 10, 30, 60, ... 3600 seconds; a throttle counts 1 to 1,000,000 (Google's rate
# limiting overview; int32 was accepted before, a figure Google refuses).
@pytest.mark.parametrize(("requests", "window", "ok"), [
    (1, 10, True), (1, 9, False), (1, 3600, True), (1, 3601, False), (5, 45, False), (1_000_000, 60, True),
    (1_000_001, 60, False), (2_147_483_647, 60, False),
])
def test_cloud_armor_thresholds_and_intervals(tmp_path: Path, requests: int, window: int, ok: bool) -> None:
    found = _gcp(tmp_path, _limit(requests=requests, window_seconds=window))
    assert (found == []) is ok, found
    if not ok and window not in (10, 60, 3600):
        assert "10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700, 3600" in found[0][1]


def test_a_ban_is_cloud_armor_only(tmp_path: Path) -> None:
    ban = _limit(requests=100, window_seconds=60, action="ban", ban_seconds=600)
    assert _gcp(tmp_path, ban) == []
    [(field, message)] = _aws(tmp_path, ban)
    assert field.endswith("rate_limit.action") and "AWS WAF has no ban" in message


@pytest.mark.parametrize(("fields", "words"), [
    ({"requests": 100, "window_seconds": 60, "key": "header"}, "key: header needs `header`"),
    ({"requests": 100, "window_seconds": 60, "action": "ban"}, "action: ban needs ban_seconds"),
    ({"requests": 100, "window_seconds": 60, "exempt_paths": "['health*']"}, "path prefixes starting with '/'"),
    ({"requests": 0, "window_seconds": 60}, "greater than or equal to 1"),
])
def test_inconsistent_limits_are_refused_on_both_clouds(tmp_path: Path, fields: dict[str, object], words: str) -> None:
    for found in (_aws(tmp_path, _limit(**fields)), _gcp(tmp_path, _limit(**fields))):
        assert any(words in message for _, message in found), found


def test_the_header_key_counts_per_api_key(tmp_path: Path) -> None:
    line = _limit(requests=100, window_seconds=60, key="header", header="X-Api-Key")
    assert _aws(tmp_path, line) == [] and _gcp(tmp_path, line) == []


def test_retries_are_refused_where_the_data_plane_cannot_retry(tmp_path: Path) -> None:
    retries = AWS_LIMIT + "          retries: {attempts: 2, per_try_timeout_seconds: 30}\n"
    [(field, message)] = _aws(tmp_path, retries)
    assert field.endswith("retries") and "an ALB never retries" in message
    retries = GCP_LIMIT + "          retries: {attempts: 2, per_try_timeout_seconds: 30}\n"
    [(field, message)] = _gcp(tmp_path, retries)
    # tpu-prod pins GKE 1.33.5-gke.1162000: 1.3.0 by the "1.33.2-gke.1335000 or later" row of GKE's page.
    assert field.endswith("retries") and "no HTTPRoute retry field" in message
    assert "GKE 1.33.5-gke.1162000 installs Gateway API 1.3.0" in message


@pytest.mark.parametrize(("gke", "release"), [
    # GKE's GatewayClass capabilities page, "Gateway API versions", read 2026-12-07: each boundary and one below.
    ("1.35.2-gke.1842000", "1.5.0"), ("1.35.2-gke.1841999", "1.4.0"), ("1.34.1-gke.1822000", "1.4.0"),
    ("1.34.1-gke.1821999", "1.3.0"), ("1.33.2-gke.1335000", "1.3.0"), ("1.33.2-gke.1334999", "1.2.0"),
    ("1.32.2-gke.1475000", "1.2.0"), ("1.32.2-gke.1474999", "1.1.0"), ("1.30.2-gke.1783000", "1.1.0"),
    ("1.30.2-gke.1782999", None), ("1.36.0-gke.1000", "1.5.0"),
])
def test_the_gateway_api_release_gke_installs_per_version(gke: str, release: str | None) -> None:
    assert gateway_api.served(gke).gateway_api == release


def test_route_timeouts_on_a_gke_whose_gateway_api_predates_them_are_refused(tmp_path: Path) -> None:
    """HTTPRoute timeouts are standard from Gateway API 1.2.0; GKE 1.32.2-gke.1474999 installs 1.1.0, whose CRD
    has no `timeouts`: the routes' timeouts would be refused or dropped."""
    found = _gke_at(tmp_path, "1.32.2-gke.1474999")
    assert [field for field, _ in found] == ["accelplane:platform.gcp.gke_version"], found
    message = found[0][1]
    assert "installs Gateway API 1.1.0, whose standard HTTPRoute has no timeouts" in message
    assert "pin GKE 1.32.2-gke.1475000 or newer" in message
    assert _gke_at(tmp_path, "1.32.2-gke.1475000") == []


def _gke_at(tmp_path: Path, version: str) -> list[tuple[str, str]]:
    minor = ".".join(version.split(".")[:2])
    return edit_problems(tmp_path, ('gke_version: "1.33.5-gke.1162000"', f'gke_version: "{version}"'),
                         ('kubernetes_version: "1.33"', f'kubernetes_version: "{minor}"'), stack="tpu-prod")


def test_a_retry_policy_without_a_per_try_timeout_is_a_retry_storm(tmp_path: Path) -> None:
    found = _gcp(tmp_path, GCP_LIMIT + "          retries: {attempts: 2}\n")
    assert any("needs per_try_timeout_seconds" in message for _, message in found), found


def test_timeouts_on_each_cloud(tmp_path: Path) -> None:
    [(field, message)] = _aws(tmp_path, AWS_LIMIT + "          timeouts: {request_seconds: 60}\n")
    assert field.endswith("timeouts.request_seconds") and "an ALB has no request timeout" in message
    assert _gcp(tmp_path, GCP_LIMIT + "          timeouts: {request_seconds: 3600, backend_request_seconds: 1}\n") == []
    found = _gcp(tmp_path, GCP_LIMIT + "          timeouts: {request_seconds: 30, backend_request_seconds: 31}\n")
    assert any("cannot be longer than request_seconds" in message for _, message in found), found
    found = _gcp(tmp_path, GCP_LIMIT + "          timeouts: {request_seconds: 3601}\n")
    assert any("less than or equal to 3600" in message for _, message in found), found


def test_health_check_matchers_per_cloud(tmp_path: Path) -> None:
    aws_check = "          health_check: {path: /v1/health, matcher: \"200\"}\n"
    [(field, message)] = _aws(tmp_path, AWS_LIMIT + aws_check.replace("\n", "").replace("}", ", response: ok}\n"))
    assert field.endswith("health_check.response") and "status codes only" in message
    assert _aws(tmp_path, AWS_LIMIT + "          health_check: {path: /v1/ready, matcher: \"200-299\"}\n") == []
    [(field, message)] = _gcp(tmp_path, GCP_LIMIT + "          health_check: {path: /healthz, matcher: \"204\"}\n")
    assert field.endswith("health_check.matcher") and "200 only" in message
    found = _aws(tmp_path, AWS_LIMIT + "          health_check: {path: /v1/health, matcher: \"600\"}\n")
    assert any("health_check.matcher" in field for field, _ in found), found


@pytest.mark.parametrize(("size", "ok"), [(1, True), (8192, True), (8193, False)])
def test_body_limit_within_what_the_alb_shows_waf(tmp_path: Path, size: int, ok: bool) -> None:
    found = _aws(tmp_path, AWS_LIMIT + f"          max_request_body_bytes: {size}\n")
    assert (found == []) is ok, found
    [(field, message)] = _gcp(tmp_path, GCP_LIMIT + f"          max_request_body_bytes: {size}\n")
    assert field.endswith("max_request_body_bytes") and "Cloud Armor has no request-body size limit" in message


def test_managed_rule_groups_are_aws_names(tmp_path: Path) -> None:
    old = "waf_managed_rule_groups: [AWSManagedRulesKnownBadInputsRuleSet, AWSManagedRulesAmazonIpReputationList]"
    try:
        edited_stack(tmp_path, (old, "waf_managed_rule_groups: [AWSManagedRulesKnownBadInputRuleSet]"))
    except InputError as error:
        [problem] = error.problems
        assert "did you mean AWSManagedRulesKnownBadInputsRuleSet" in problem.message
        assert problem.line is not None
    else:
        raise AssertionError("an unknown managed rule group was accepted")
    assert _gcp(tmp_path, GCP_LIMIT + GCP_AFTER) == []


def test_retries_on_a_release_channel_cluster_name_every_release_gke_installs(tmp_path: Path) -> None:
    """No pinned version: the refusal holds for every release GKE installs, and says so."""
    retries = GCP_LIMIT + "          retries: {attempts: 2, per_try_timeout_seconds: 30}\n"
    found = [message for _, message in edit_problems(
        tmp_path, (GCP_LIMIT + GCP_AFTER, retries), ('gke_version: "1.33.5-gke.1162000"', "release_channel: REGULAR"),
        stack="tpu-prod")]
    assert len(found) == 1 and "every Gateway API release GKE installs (1.1.0 to 1.5.0)" in found[0], found


def test_a_service_the_endpoint_does_not_expose_has_no_route_to_refuse(tmp_path: Path) -> None:
    """Only an exposed service gets an HTTPRoute: unexposed, the old GKE's Gateway API is no one's problem."""
    name = "        - name: llm-server\n"
    found = edit_problems(tmp_path, (name, name + "          expose: false\n"),
                          ('gke_version: "1.33.5-gke.1162000"', 'gke_version: "1.32.2-gke.1474999"'),
                          ('kubernetes_version: "1.33"', 'kubernetes_version: "1.32"'), stack="tpu-prod")
    assert not [message for _, message in found if "HTTPRoute has no timeouts" in message], found
