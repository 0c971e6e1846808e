"""AP-K8S-007 and the backends of one inference service: one workload on several accelerator types
shares its service account by design; anything else sharing it is still reported."""

from __future__ import annotations

from dataclasses import replace

from accelplane.rules import types as t
from accelplane.rules.engine import run_rule
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import rule_by_id
from tests.rules.cases import deployment, res

RULE = rule_by_id("AP-K8S-007")
assert RULE is not None


def _service(name: str):
    return res(t.INFERENCE_SERVICE, name, {"service": name})


def _backend(name: str, parent: str):
    return replace(deployment(name, serviceAccountName="serve", namespace="inference"), parent=parent)


def _shared(*resources) -> list[str]:
    findings, _ = run_rule(RULE, ReferenceGraph(list(resources)))
    return sorted(f.name for f in findings)


def test_backends_of_one_service_share_its_account_without_a_finding() -> None:
    service = _service("serve")
    assert _shared(service, _backend("serve-l40s", service.urn), _backend("serve-inf2", service.urn)) == []


def test_a_deployment_of_another_service_on_the_same_account_is_still_shared() -> None:
    serve, chat = _service("serve"), _service("chat")
    assert _shared(serve, chat, _backend("serve-l40s", serve.urn), _backend("chat-l4", chat.urn)) == [
        "chat-l4", "serve-l40s"]


def test_a_parent_that_is_not_an_inference_service_does_not_group_workloads() -> None:
    other = replace(_service("x"), type="accelplane:k8s:WorkloadNamespace")
    assert _shared(other, _backend("a", other.urn), _backend("b", other.urn)) == ["a", "b"]
