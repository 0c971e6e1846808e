"""Live verify of the endpoint's rate limit on AWS, in moto (it implements wafv2): the WAF web ACL the
load balancer really has holds each declared rate-based rule, acting as declared; a web ACL detached
by hand, or a rule switched to counting, fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
import pytest

from accelplane.clouds.aws.verify.declared import aws_declared
from accelplane.config.loader import StackConfig, load_stack_text
from accelplane.engine.graph import OfflineGraph
from accelplane.program import offline_graph
from accelplane.verify.declared import DeclaredPlatform
from tests.support.stack_files import stack_text
from tests.verify.conftest import CHECKPOINT_FILES, _runner
from tests.verify.moto_platform import MotoPlatform

LIMIT = "          rate_limit: {requests: 300, window_seconds: 60, exempt_paths: [/healthz]}\n"


@pytest.fixture(scope="module")
def limited_stack() -> StackConfig:
    text = stack_text("dev")
    anchor = "          autoscaling: {min_replicas: 1, max_replicas: 2, target_cpu_utilization: 70}\n"
    assert text.count(anchor) == 1
    return load_stack_text(text.replace(anchor, anchor + LIMIT), path="Pulumi.dev.yaml", stack="dev")


@pytest.fixture(scope="module")
def limited_graph(limited_stack: StackConfig) -> OfflineGraph:
    return offline_graph(limited_stack)


@pytest.fixture
def live(moto: None, limited_stack: StackConfig, limited_graph: OfflineGraph,
         boto_session: boto3.Session) -> MotoPlatform:
    declared: DeclaredPlatform = aws_declared(limited_stack, limited_graph)
    platform = MotoPlatform(declared, session=boto_session).create()
    platform.register_targets()
    platform.write_checkpoint("trainer/", 1200, CHECKPOINT_FILES)
    return platform


@pytest.fixture
def run(limited_stack: StackConfig, limited_graph: OfflineGraph, boto_session: boto3.Session) -> Callable[..., Any]:
    return _runner(limited_stack, limited_graph, boto_session)


def _rate(report: Any) -> list[Any]:
    return [r for r in report.results if r.check == "live.rate-limit" or "GetWebACLForResource" in r.message]


def _load_balancer(live: MotoPlatform) -> str:
    [arn] = [a for a in live.client("elbv2").describe_load_balancers()["LoadBalancers"]]
    return arn["LoadBalancerArn"]


def test_the_attached_web_acl_holds_the_declared_rate_rule(live: MotoPlatform, run: Callable[..., Any]) -> None:
    [result] = _rate(run())
    assert result.status.value == "pass" and "1 rate rule(s) acting as declared" in result.message, result.message
    assert result.type == "aws:lb/loadBalancer:LoadBalancer"


def test_a_web_acl_detached_by_hand_fails(live: MotoPlatform, run: Callable[..., Any]) -> None:
    live.client("wafv2").disassociate_web_acl(ResourceArn=_load_balancer(live))
    [result] = _rate(run())
    assert result.status.value == "fail" and "no AWS WAF web ACL is attached" in result.message


def test_a_rate_rule_switched_to_counting_fails(live: MotoPlatform, run: Callable[..., Any]) -> None:
    waf = live.client("wafv2")
    acl = waf.get_web_acl_for_resource(ResourceArn=_load_balancer(live))["WebACL"]
    found = waf.get_web_acl(Name=acl["Name"], Scope="REGIONAL", Id=acl["Id"])
    rules = [{**rule, "Action": {"Count": {}}} if "RateBasedStatement" in rule["Statement"] else rule
             for rule in found["WebACL"]["Rules"]]
    waf.update_web_acl(Name=acl["Name"], Scope="REGIONAL", Id=acl["Id"], DefaultAction=acl["DefaultAction"],
                       Rules=rules, VisibilityConfig=acl["VisibilityConfig"], LockToken=found["LockToken"])
    [result] = _rate(run())
    assert result.status.value == "fail" and "acts as count, declared block" in result.message, result.message


def test_without_a_declared_rate_limit_nothing_is_judged(live_dev: MotoPlatform, run_verify: Any) -> None:
    report = run_verify()
    assert _rate(report) == []
    # ... and nothing is read: no web ACL declared, no wafv2 call.
    assert not [op for op in report.api_calls["by_operation"] if op.startswith("wafv2.")]


def test_a_declared_web_acl_is_read_once_per_load_balancer(live: MotoPlatform, run: Callable[..., Any]) -> None:
    assert run().api_calls["by_operation"]["wafv2.GetWebACLForResource"] == 1
