"""The ALB splits each exposed service's requests between its backends' target groups by the declared
weights; services other than the one on "/" get a path rule; other tools find a backend's target
group by its tags."""

from __future__ import annotations

from pathlib import Path

from accelplane.clouds.aws.components.inference_endpoint import rule_priorities
from accelplane.config.loader import load_stack_file
from accelplane.engine.graph import OfflineGraph, RecordedResource
from accelplane.program import offline_graph
from tests.support.stack_files import write_variant

DEV_SERVICE_TAIL = "          autoscaling: {min_replicas: 1, max_replicas: 2, target_cpu_utilization: 70}\n"
IMAGE = (
    "111122223333.dkr.ecr.us-east-1.amazonaws.com/llm-server@sha256:"
    "8f4b1c3a9e2d7f6b5a4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"
)


def _service(name: str, prefix: str) -> str:
    return (
        f"        - name: {name}\n"
        "          workload: server\n"
        f"          path_prefix: {prefix}\n"
        "          node_pool: infer-l4\n"
        f"          image: {IMAGE}\n"
        "          autoscaling: {min_replicas: 1, max_replicas: 2}\n"
    )


def _dev_with(tmp_path: Path, old: str, new: str) -> OfflineGraph:
    path, _ = write_variant(tmp_path, old, new, "dev")
    return offline_graph(load_stack_file(path))


def _target_groups(graph: OfflineGraph) -> dict[tuple[str, str], RecordedResource]:
    groups = graph.by_type("aws:lb/targetGroup:TargetGroup")
    return {(g.inputs["tags"]["accelplane:service"], g.inputs["tags"]["accelplane:backend"]): g for g in groups}


def _https(graph: OfflineGraph, platform: str) -> dict:
    return graph.named(f"{platform}-inference-https").inputs


def test_one_target_group_per_backend_tagged_with_service_and_backend(prod_graph: OfflineGraph) -> None:
    groups = _target_groups(prod_graph)
    assert set(groups) == {("serve", "l40s"), ("serve", "inf2")}
    for (service, backend), group in groups.items():
        assert group.name == f"acme-ml-inference-tg-{service}-{backend}"
        assert group.inputs["tags"]["accelplane:platform"] == "acme-ml"  # the platform tags too
        assert "name" not in group.inputs, "pulumi-aws auto-names target groups (32 characters at most)"
        assert group.inputs["targetType"] == "ip" and group.inputs["port"] == 8080


def test_listener_forwards_to_the_backends_with_the_declared_weights(prod_graph: OfflineGraph) -> None:
    groups = _target_groups(prod_graph)
    # prod authenticates callers first (tests/program/test_client_auth.py), then forwards.
    [authenticate, action] = _https(prod_graph, "acme-ml")["defaultActions"]
    assert authenticate["type"] == "jwt-validation"
    assert action["type"] == "forward" and "targetGroupArn" not in action
    weights = {tg["arn"]: tg["weight"] for tg in action["forward"]["targetGroups"]}
    assert weights == {groups[("serve", "l40s")].outputs["arn"]: 95, groups[("serve", "inf2")].outputs["arn"]: 5}
    # A client is not pinned to one backend: the split is what the weights say.
    assert action["forward"]["stickiness"] == {"enabled": False, "duration": 1}
    assert not prod_graph.by_type("aws:lb/listenerRule:ListenerRule")
    # What this deployment sets, kept where `rollout --apply-now` does not write (verify compares).
    assert _https(prod_graph, "acme-ml")["tags"]["accelplane:weights"] == "l40s=95 inf2=5"


def test_a_single_backend_service_forwards_all_requests_to_its_target_group(dev_graph: OfflineGraph) -> None:
    [(key, group)] = _target_groups(dev_graph).items()
    assert key == ("server", "server")
    [action] = _https(dev_graph, "acme-ml-dev")["defaultActions"]
    assert action["forward"]["targetGroups"] == [{"arn": group.outputs["arn"], "weight": 100}]


def test_a_second_exposed_service_gets_a_path_rule_longer_prefixes_first(tmp_path: Path) -> None:
    graph = _dev_with(
        tmp_path, DEV_SERVICE_TAIL, DEV_SERVICE_TAIL + _service("chat", "/chat/") + _service("chat-v2", "/chat/v2/")
    )
    groups = _target_groups(graph)
    assert set(groups) == {("server", "server"), ("chat", "chat"), ("chat-v2", "chat-v2")}
    [default] = _https(graph, "acme-ml-dev")["defaultActions"]
    assert [tg["arn"] for tg in default["forward"]["targetGroups"]] == [groups[("server", "server")].outputs["arn"]]
    rules = {r.name: r.inputs for r in graph.by_type("aws:lb/listenerRule:ListenerRule")}
    assert set(rules) == {"acme-ml-dev-inference-rule-chat", "acme-ml-dev-inference-rule-chat-v2"}
    listener = graph.named("acme-ml-dev-inference-https")
    for service, pattern in (("chat", "/chat/*"), ("chat-v2", "/chat/v2/*")):
        rule = rules[f"acme-ml-dev-inference-rule-{service}"]
        assert rule["listenerArn"] == listener.outputs["arn"]
        assert rule["conditions"] == [{"pathPattern": {"values": [pattern]}}]
        [action] = rule["actions"]
        assert action["forward"]["targetGroups"] == [{"arn": groups[(service, service)].outputs["arn"], "weight": 100}]
        assert rule["tags"]["accelplane:weights"] == f"{service}=100"
    # /chat/v2/ must be matched before /chat/, which would otherwise take its requests.
    priority = {service: rules[f"acme-ml-dev-inference-rule-{service}"]["priority"] for service in ("chat", "chat-v2")}
    assert priority["chat-v2"] < priority["chat"]


def test_without_a_service_on_the_root_the_listener_answers_404(tmp_path: Path) -> None:
    graph = _dev_with(tmp_path, "          port: 8000\n", "          port: 8000\n          path_prefix: /v1/\n")
    [default] = _https(graph, "acme-ml-dev")["defaultActions"]
    assert default["type"] == "fixed-response" and default["fixedResponse"]["statusCode"] == "404"
    assert "accelplane:weights" not in _https(graph, "acme-ml-dev")["tags"]
    [rule] = graph.by_type("aws:lb/listenerRule:ListenerRule")
    assert rule.inputs["conditions"] == [{"pathPattern": {"values": ["/v1/*"]}}]


def test_rule_priorities_rank_longer_prefixes_first_and_stay_put() -> None:
    ranked = rule_priorities(["/", "/chat/", "/chat/v2/", "/emb/"])
    assert "/" not in ranked  # the default action, not a rule
    assert ranked["/chat/v2/"] < ranked["/chat/"] < ranked["/emb/"]
    assert len(set(ranked.values())) == len(ranked)
    assert all(1 <= p <= 50000 for p in ranked.values())
    # A service of another length leaves the others' priorities alone (no two rules ever swap numbers).
    assert {k: v for k, v in rule_priorities(["/chat/", "/chat/v2/", "/emb/", "/a/"]).items() if k != "/a/"} == {
        k: v for k, v in ranked.items()
    }
