"""`verify` on the endpoint's weighted routing: each exposed service's forward (the HTTPS listener's
default action for "/", a listener rule per other prefix) against its backends' declared weights.

The platform is the canary variant of dev (`canary_text`): service `server` on "/" with backends `l4`
(95) and `l4-int8` (5) and a rollout between them, and service `embed` behind `/embed/*`. Each test
changes the live routing the way an operator (or a script) would, through the ELBv2 API.
"""

from __future__ import annotations

from typing import Any

import boto3

from accelplane.clouds.aws.clients import AwsClients
from accelplane.clouds.aws.verify.declared import aws_declared
from accelplane.clouds.aws.verify.live_view import VERIFIED_TYPES
from accelplane.clouds.aws.verify.reader import AwsReader
from accelplane.clouds.aws.verify.routing import idle_target_groups, live_forward, without_targets
from accelplane.clouds.aws.verify.state_checks import target_health
from accelplane.config.loader import load_stack_text
from accelplane.program import offline_graph
from accelplane.rules.view import Resource
from accelplane.verify.declared import DeclaredPlatform
from accelplane.verify.results import CheckId, Status, VerifyReport
from accelplane.verify.verification import VerifyOptions, verify
from tests.verify.conftest import CHECKPOINT_FILES, canary_text, failures
from tests.verify.moto_platform import MotoPlatform

LISTENER_RULE = "aws:lb/listenerRule:ListenerRule"
HTTPS = "acme-ml-dev-inference-https"
EMBED_RULE = "acme-ml-dev-inference-rule-embed"
STICKINESS_OFF = {"Enabled": False, "DurationSeconds": 1}


def results(report: VerifyReport, check: str, name: str | None = None) -> list[Any]:
    return [r for r in report.results if r.check == check and (name is None or r.name == name)]


def forward(*targets: tuple[str, int]) -> list[dict[str, Any]]:
    return [
        {
            "Type": "forward",
            "ForwardConfig": {
                "TargetGroups": [{"TargetGroupArn": arn, "Weight": weight} for arn, weight in targets],
                "TargetGroupStickinessConfig": STICKINESS_OFF,
            },
        }
    ]


def test_two_weighted_backends_and_a_path_rule_verify_clean(
    live_canary: MotoPlatform, run_verify_canary: Any, canary_declared: DeclaredPlatform
) -> None:
    report = run_verify_canary()

    assert failures(report) == []
    routing = {
        r.name
        for r in canary_declared.resources
        if r.type in ("aws:lb/targetGroup:TargetGroup", "aws:lb/listener:Listener", LISTENER_RULE)
    }
    assert {r.name for r in results(report, CheckId.drift_matched)} >= routing
    assert len([r for r in canary_declared.resources if r.type == "aws:lb/targetGroup:TargetGroup"]) == 3
    assert LISTENER_RULE in VERIFIED_TYPES
    # One DescribeRules per listener (HTTPS and the redirect), whatever the number of rules.
    assert report.api_calls["by_operation"]["elbv2.DescribeRules"] == 2


def test_weights_changed_by_hand_are_drift_naming_the_rollout(
    live_canary: MotoPlatform, run_verify_canary: Any
) -> None:
    live_canary.client("elbv2").modify_listener(
        ListenerArn=live_canary.https_listener(),
        DefaultActions=forward(
            (live_canary.target_group("server", "l4"), 75), (live_canary.target_group("server", "l4-int8"), 25)
        ),
    )

    report = run_verify_canary()

    [changed] = results(report, CheckId.drift_changed)
    assert (changed.name, changed.path, changed.status) == (HTTPS, "defaultActions.forward.targetGroups", Status.failed)
    assert changed.message == (
        "service server: live weights l4 75 / l4-int8 25, declared l4 95 / l4-int8 5 (rollout l4 → l4-int8; run "
        "`pulumi up`, or the weights were applied with `accelplane rollout --apply-now`)"
    )
    assert (changed.expected, changed.actual) == ({"l4": 95, "l4-int8": 5}, {"l4": 75, "l4-int8": 25})
    assert failures(report) == [(CheckId.drift_changed, HTTPS, "defaultActions.forward.targetGroups")]
    assert not results(report, CheckId.drift_matched, HTTPS)  # a listener with drift does not also "match"


def test_a_target_group_swapped_into_the_forward_is_drift(live_canary: MotoPlatform, run_verify_canary: Any) -> None:
    # The canary's share goes to the embed service's target group instead.
    live_canary.client("elbv2").modify_listener(
        ListenerArn=live_canary.https_listener(),
        DefaultActions=forward(
            (live_canary.target_group("server", "l4"), 95), (live_canary.target_group("embed", "embed"), 5)
        ),
    )

    report = run_verify_canary()

    [changed] = results(report, CheckId.drift_changed)
    assert (changed.name, changed.path) == (HTTPS, "defaultActions.forward.targetGroups")
    assert changed.message.startswith(
        "service server: forwards to the target group of service embed backend embed (weight 5), not to a target "
        "group of its backends (l4, l4-int8); live weights l4 95 / l4-int8 0, declared l4 95 / l4-int8 5"
    )
    assert changed.actual == {"l4": 95, "l4-int8": 0, "embed": 5}
    assert report.failed


def test_a_rule_forwarding_to_an_undeclared_target_group_is_drift(
    live_canary: MotoPlatform, run_verify_canary: Any
) -> None:
    elb = live_canary.client("elbv2")
    vpc = live_canary.live_id["acme-ml-dev-network-vpc"]
    stray = elb.create_target_group(Name="hand-made", Protocol="HTTP", Port=8000, VpcId=vpc, TargetType="ip")
    rule = live_canary.live_id[EMBED_RULE]
    elb.modify_rule(RuleArn=rule, Actions=forward((stray["TargetGroups"][0]["TargetGroupArn"], 100)))

    report = run_verify_canary()

    [changed] = results(report, CheckId.drift_changed)
    assert (changed.name, changed.path) == (EMBED_RULE, "actions.forward.targetGroups")
    assert "forwards to target group hand-made, not one of the platform's (weight 100)" in changed.message
    assert "live weights embed 0, declared embed 100" in changed.message


def test_an_extra_listener_rule_is_unexpected(live_canary: MotoPlatform, run_verify_canary: Any) -> None:
    live_canary.client("elbv2").create_rule(
        ListenerArn=live_canary.https_listener(),
        Priority=1,
        Conditions=[{"Field": "path-pattern", "PathPatternConfig": {"Values": ["/admin/*"]}}],
        Actions=forward((live_canary.target_group("server", "l4"), 1)),
    )

    report = run_verify_canary()

    [unexpected] = results(report, CheckId.drift_unexpected)
    assert unexpected.type == LISTENER_RULE and unexpected.status is Status.failed
    assert f"a rule of listener {HTTPS} that the declaration does not have" in unexpected.message
    assert "priority 1: pathPattern /admin/*" in unexpected.message
    assert [r.check for r in report.results if r.status is Status.failed] == [CheckId.drift_unexpected]


def test_a_rule_moved_to_another_priority_is_drift_of_that_rule(
    live_canary: MotoPlatform, run_verify_canary: Any
) -> None:
    elb = live_canary.client("elbv2")
    elb.set_rule_priorities(RulePriorities=[{"RuleArn": live_canary.live_id[EMBED_RULE], "Priority": 7}])

    report = run_verify_canary()

    assert failures(report) == [(CheckId.drift_changed, EMBED_RULE, "priority")]


def test_a_missing_backend_target_group_is_reported_by_service_and_backend(
    live_canary: MotoPlatform, run_verify_canary: Any
) -> None:
    elb = live_canary.client("elbv2")
    canary = live_canary.target_group("server", "l4-int8")
    baseline = live_canary.target_group("server", "l4")
    elb.modify_listener(ListenerArn=live_canary.https_listener(), DefaultActions=forward((baseline, 100)))
    elb.delete_target_group(TargetGroupArn=canary)

    report = run_verify_canary()

    name = live_canary.target_group_resource("server", "l4-int8").name
    [missing] = results(report, CheckId.drift_missing)
    assert missing.name == name
    assert "no target group tagged accelplane:service=server, accelplane:backend=l4-int8" in missing.message
    [changed] = results(report, CheckId.drift_changed, HTTPS)
    assert "live weights l4 100 / l4-int8 0, declared l4 95 / l4-int8 5" in changed.message


def test_an_idle_canary_needs_no_targets(canary_declared: DeclaredPlatform) -> None:
    idle_stack = load_stack_text(canary_text(baseline_weight=100), path="Pulumi.dev.yaml", stack="dev")
    idle = aws_declared(idle_stack, offline_graph(idle_stack))
    groups = idle.of_type("aws:lb/targetGroup:TargetGroup")
    [canary] = [r for r in groups if r.tags()["accelplane:backend"] == "l4-int8"]

    assert idle_target_groups(idle) == {canary.urn}
    assert idle_target_groups(canary_declared) == set()
    subject = Resource(urn=canary.urn, type=canary.type, name=canary.name, props={})
    assert target_health(subject, [], idle=True).status is Status.passed
    assert target_health(subject, [], idle=False).status is Status.failed


def test_a_one_target_forward_as_aws_reports_it_compares_with_the_declared_forms() -> None:
    arn = "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/tg/0123456789abcdef"
    # AWS: both TargetGroupArn and a ForwardConfig with weight 1; stickiness off without a duration.
    aws = {
        "Type": "forward",
        "TargetGroupArn": arn,
        "ForwardConfig": {"TargetGroups": [{"TargetGroupArn": arn, "Weight": 1}], "TargetGroupStickinessConfig": {
            "Enabled": False}},
    }
    live = {"type": "forward", "targetGroupArn": arn, "forward": live_forward(aws)}
    assert live["forward"]["targetGroups"] == [{"arn": arn, "weight": 1}]
    declared = {"type": "forward", "forward": {"targetGroups": [{"arn": arn, "weight": 100}],
                                               "stickiness": {"enabled": False, "duration": 1}}}
    assert without_targets([declared]) == without_targets([live]) == [{"type": "forward"}]
    on = {"enabled": True, "duration": 60}
    assert without_targets([{"type": "forward", "forward": {"targetGroups": [], "stickiness": on}}]) == [
        {"type": "forward", "forward": {"stickiness": on}}
    ]
    # An emulator's one-target forward: only TargetGroupArn, no weight.
    assert live_forward({"Type": "forward", "TargetGroupArn": arn}) == {
        "targetGroups": [{"arn": arn, "weight": None}],
        "stickiness": None,
    }


def test_without_a_service_on_root_the_default_404_is_verified(moto: None, boto_session: boto3.Session) -> None:
    stack = load_stack_text(canary_text(server_prefix="/chat/"), path="Pulumi.dev.yaml", stack="dev")
    graph = offline_graph(stack)
    live = MotoPlatform(aws_declared(stack, graph), session=boto_session).create()
    live.register_targets()
    live.write_checkpoint("trainer/", 1200, CHECKPOINT_FILES)

    def run() -> VerifyReport:
        clients = AwsClients("us-east-1", session=boto_session)
        return verify(stack, VerifyOptions(probes=0), graph=graph, reader=AwsReader(clients))

    assert failures(run()) == []
    # Someone points the default action at the server's baseline: every unmatched path now reaches it.
    live.client("elbv2").modify_listener(
        ListenerArn=live.https_listener(), DefaultActions=forward((live.target_group("server", "l4"), 1))
    )
    assert failures(run()) == [(CheckId.drift_changed, HTTPS, "defaultActions")]
