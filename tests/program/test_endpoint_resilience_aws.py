"""prod's inference endpoint on AWS, as preview declares it: the WAF web ACL (its rules checked against
botocore's wafv2 model, the API `pulumi up` will call), its association with the ALB, its logging
with the Authorization header redacted, the ALB's desync mitigation, the target groups' matchers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import botocore.session
import pytest
from botocore.validate import ParamValidator

from accelplane.config.loader import load_stack
from accelplane.engine.graph import OfflineGraph, RecordedResource

WAF = botocore.session.get_session().get_service_model("wafv2")


def _one(graph: OfflineGraph, token: str) -> RecordedResource:
    [resource] = graph.by_type(token)
    return resource


def _api(value: Any, shape: Any, where: str = "") -> Any:
    """The wire-format (camelCase) value in the API's own member names, matched case-insensitively
    (`cloudwatchMetricsEnabled` is the API's `CloudWatchMetricsEnabled`); an unknown key fails."""
    if shape.type_name == "structure":
        assert isinstance(value, Mapping), where
        members = {name.lower(): name for name in shape.members}
        out = {}
        for key, item in value.items():
            name = members.get(key.lower())
            assert name is not None, f"{where}.{key}: not a member of {shape.name} ({', '.join(shape.members)})"
            out[name] = _api(item, shape.members[name], f"{where}.{key}")
        return out
    if shape.type_name == "list":
        return [_api(item, shape.member, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def test_the_web_acl_is_what_wafv2_create_web_acl_accepts(prod_graph: OfflineGraph) -> None:
    acl = _one(prod_graph, "aws:wafv2/webAcl:WebAcl")
    shape = WAF.operation_model("CreateWebACL").input_shape
    params = {
        "Name": "acme-ml-inference",
        "Scope": acl.inputs["scope"],
        "DefaultAction": _api(acl.inputs["defaultAction"], shape.members["DefaultAction"], "defaultAction"),
        "Rules": _api(acl.inputs["rules"], shape.members["Rules"], "rules"),
        "VisibilityConfig": _api(acl.inputs["visibilityConfig"], shape.members["VisibilityConfig"], "visibility"),
    }
    report = ParamValidator().validate(params, shape)
    assert not report.has_errors(), report.generate_report()
    assert params["Scope"] == "REGIONAL" and params["DefaultAction"] == {"Allow": {}}


def test_the_rate_rule_is_the_declared_limit_answering_429_outside_the_exempt_path(prod_graph: OfflineGraph) -> None:
    service = load_stack("prod").platform.kubernetes.inference_services[0]
    limit = service.rate_limit
    acl = _one(prod_graph, "aws:wafv2/webAcl:WebAcl")
    [rate] = [r for r in acl.inputs["rules"] if "rateBasedStatement" in r["statement"]]
    statement = rate["statement"]["rateBasedStatement"]
    assert (statement["limit"], statement["evaluationWindowSec"], statement["aggregateKeyType"]) == (
        limit.requests, limit.window_seconds, "IP")
    assert rate["action"] == {"block": {"customResponse": {"responseCode": 429}}}
    # The service owns "/": its rule counts everything but the exempt health path.
    assert statement["scopeDownStatement"]["notStatement"]["statement"]["byteMatchStatement"]["searchString"] == (
        "/v1/health")
    managed = [r["statement"]["managedRuleGroupStatement"]["name"] for r in acl.inputs["rules"]
               if "managedRuleGroupStatement" in r["statement"]]
    assert managed == ["AWSManagedRulesKnownBadInputsRuleSet", "AWSManagedRulesAmazonIpReputationList"]


def test_the_web_acl_guards_the_alb_and_logs_without_the_authorization_header(prod_graph: OfflineGraph) -> None:
    alb = _one(prod_graph, "aws:lb/loadBalancer:LoadBalancer")
    acl = _one(prod_graph, "aws:wafv2/webAcl:WebAcl")
    association = _one(prod_graph, "aws:wafv2/webAclAssociation:WebAclAssociation")
    assert association.inputs["resourceArn"] == alb.outputs["arn"]
    assert association.inputs["webAclArn"] == acl.outputs["arn"]
    logging = _one(prod_graph, "aws:wafv2/webAclLoggingConfiguration:WebAclLoggingConfiguration")
    [group] = [g for g in prod_graph.by_type("aws:cloudwatch/logGroup:LogGroup") if g.name.endswith("-waf-logs")]
    assert group.inputs["name"].startswith("aws-waf-logs-"), "WAF logs only to groups named aws-waf-logs-*"
    assert logging.inputs["logDestinationConfigs"] == [group.outputs["arn"]]
    assert logging.inputs["redactedFields"] == [{"singleHeader": {"name": "authorization"}}]
    shape = WAF.operation_model("PutLoggingConfiguration").input_shape.members["LoggingConfiguration"]
    redacted = _api(logging.inputs["redactedFields"], shape.members["RedactedFields"], "redactedFields")
    assert redacted == [{"SingleHeader": {"Name": "authorization"}}]


def test_the_alb_refuses_ambiguous_requests_and_the_targets_name_their_probe(prod_graph: OfflineGraph) -> None:
    alb = _one(prod_graph, "aws:lb/loadBalancer:LoadBalancer")
    assert alb.inputs["desyncMitigationMode"] == "strictest"
    assert alb.inputs["dropInvalidHeaderFields"] is True
    assert alb.inputs["idleTimeout"] == 120
    for group in prod_graph.by_type("aws:lb/targetGroup:TargetGroup"):
        check = group.inputs["healthCheck"]
        assert (check["path"], check["matcher"]) == ("/v1/health", "200"), group.name
        assert group.inputs["slowStart"] == 60 and group.inputs["deregistrationDelay"] == 30


@pytest.mark.parametrize("stack", ["dev"])
def test_an_endpoint_without_limits_or_managed_groups_has_no_web_acl(stack: str, dev_graph: OfflineGraph) -> None:
    assert dev_graph.by_type("aws:wafv2/webAcl:WebAcl") == []
