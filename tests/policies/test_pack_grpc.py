"""The CrossGuard pack, started as the Pulumi CLI starts it and queried over the analyzer protocol
with the graphs of dev, prod and a deliberately bad program (the bad stack export)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pulumi.runtime.proto import analyzer_pb2

from accelplane.engine.graph import from_offline_graph
from accelplane.rules.enforcement import resolve_levels
from accelplane.rules.engine import evaluate
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.registry import RULES
from accelplane.rules.rule import Scope
from accelplane.rules.sources import from_state
from accelplane.rules.view import Resource
from tests.policies.pack_client import analyze_all, analyze_request, configure, info, start_pack

BAD_STATE = Path(__file__).resolve().parents[1] / "check" / "fixtures" / "bad-stack-export.json"


@pytest.fixture(scope="module")
def pack():
    running = start_pack()
    yield running
    running.close()


@pytest.fixture(scope="module")
def bad_resources() -> list[Resource]:
    return from_state(json.loads(BAD_STATE.read_text()), str(BAD_STATE))


def test_pack_describes_one_policy_per_rule(pack) -> None:
    described = info(pack)
    assert described.name == "accelplane" and described.supportsConfig
    policies = {p.name: p for p in described.policies}
    assert set(policies) == {rule.id for rule in RULES}
    for rule in RULES:
        policy = policies[rule.id]
        resource_scope = rule.scope is Scope.resource
        expected_type = analyzer_pb2.POLICY_TYPE_RESOURCE if resource_scope else analyzer_pb2.POLICY_TYPE_STACK
        assert policy.policy_type == expected_type, rule.id
        assert policy.enforcementLevel == (analyzer_pb2.MANDATORY if rule.enforcement.value == "mandatory"
                                           else analyzer_pb2.ADVISORY), rule.id
        assert policy.displayName == rule.name and policy.remediation_steps == rule.remediation


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_real_stacks_raise_no_violation_but_the_hand_rotated_token_s_advice(pack, stack, dev_graph, prod_graph) -> None:
    graph = dev_graph if stack == "dev" else prod_graph
    diagnostics, _ = analyze_all(pack, from_offline_graph(graph))
    # The Hugging Face token is renewed by hand at its issuer: AP-SM-003 advises rotation, blocking nothing.
    platform = "acme-ml-dev" if stack == "dev" else "acme-ml"
    assert [(d.policyName, d.urn.rsplit("::", 1)[-1], d.enforcementLevel) for d in diagnostics] == [
        ("AP-SM-003", f"{platform}-secrets-hf-token", analyzer_pb2.ADVISORY)]
    assert diagnostics[0].message.endswith(f"{platform}-secrets-hf-token: secret never rotates: no rotation schedule")


def test_bad_program_violations_match_accelplane_check(pack, bad_resources) -> None:
    diagnostics, _ = analyze_all(pack, bad_resources)
    from_pack = {(d.policyName, d.urn) for d in diagnostics if d.urn}
    from_check = {(f.rule.id, f.urn) for f in evaluate(ReferenceGraph(bad_resources)).findings}
    # Resource policies report against the analyzed resource (urn empty in the diagnostic): map them.
    resource_diags = [d for d in diagnostics if not d.urn]
    assert not resource_diags or all(d.policyName for d in resource_diags)
    assert {name for name, _ in from_check} == {d.policyName for d in diagnostics}
    assert from_pack <= from_check
    # Each diagnostic at its rule's enforcement (dev's hand-rotated token: AP-SM-003, advisory).
    enforcement = {rule.id: rule.enforcement.value for rule in RULES}
    level = {"mandatory": analyzer_pb2.MANDATORY, "advisory": analyzer_pb2.ADVISORY}
    assert all(d.enforcementLevel == level[enforcement[d.policyName]] for d in diagnostics)
    assert {d.policyName for d in diagnostics if d.enforcementLevel == analyzer_pb2.ADVISORY} == {"AP-SM-003"}


def test_every_resource_violation_is_reported_on_its_resource(pack, bad_resources) -> None:
    expected = {(f.rule.id, f.urn) for f in evaluate(ReferenceGraph(bad_resources), scopes=[Scope.resource]).findings}
    found = set()
    for resource in bad_resources:
        for diagnostic in pack.stub.Analyze(analyze_request(resource)).diagnostics:
            found.add((diagnostic.policyName, resource.urn))
    assert found == expected


def test_numbers_arrive_as_floats_and_still_compare(pack, bad_resources) -> None:
    template = next(r for r in bad_resources if r.name == "acme-ml-dev-infer-l4-lt")
    response = pack.stub.Analyze(analyze_request(template))
    assert [d.policyName for d in response.diagnostics] == ["AP-EC2-002"]
    assert "is 2, not 1" in response.diagnostics[0].message  # 2.0 on the wire, read as 2


def test_unknown_values_make_a_policy_not_applicable(pack, bad_resources) -> None:
    template = next(r for r in bad_resources if r.name == "acme-ml-dev-infer-l4-lt")
    props = json.loads(json.dumps(template.props))
    props["metadataOptions"]["httpPutResponseHopLimit"] = "3eeb2bf0-c639-47a8-9e75-3b44932eb421"
    unknown = Resource(urn=template.urn, type=template.type, name=template.name, props=props)
    response = pack.stub.Analyze(analyze_request(unknown))
    assert "AP-EC2-002" in {n.policy_name for n in response.not_applicable}
    assert not any(d.policyName == "AP-EC2-002" for d in response.diagnostics)


def test_enforcement_all_default_with_per_rule_override() -> None:
    """`{"all": "advisory", "AP-KMS-001": "mandatory"}` as the CLI expands it for Configure."""
    running = start_pack()
    try:
        resources = from_state(json.loads(BAD_STATE.read_text()), str(BAD_STATE))
        levels = resolve_levels(RULES, {"all": "advisory", "AP-KMS-001": "mandatory", "AP-IAM-001": "disabled"})
        configure(running, levels)
        diagnostics, _ = analyze_all(running, resources)
        by_level = {(d.policyName, d.enforcementLevel) for d in diagnostics}
        assert ("AP-KMS-001", analyzer_pb2.MANDATORY) in by_level
        assert all(level == analyzer_pb2.ADVISORY for name, level in by_level if name != "AP-KMS-001")
        assert not any(d.policyName == "AP-IAM-001" for d in diagnostics)
    finally:
        running.close()


WAIVERS = """    waivers:
      - rule: AP-KMS-001
        resource: acme-ml-dev-data-key
        reason: key rotation handled by the quarterly re-encryption job
        owner: ml-platform
        expires: "2099-01-01"
      - rule: AP-S3-005
        resource: acme-ml-dev-checkpoints-bucket
        reason: this waiver has run out and must stop covering the finding
        owner: ml-platform
        expires: "2020-01-01"
"""


def test_the_pack_applies_the_stack_s_waivers_like_check(tmp_path, bad_resources) -> None:
    """The pack judges through the same `judge()` as `accelplane check`: the declaration of the stack the
    URNs name supplies the waivers, so a waived finding blocks neither, and an expired waiver covers nothing."""
    import shutil

    from tests.policies.pack_client import PACK_DIR
    from tests.support.stack_files import stack_text

    (tmp_path / "Pulumi.yaml").write_text("name: accelplane\nruntime: python\nstackConfigDir: stacks\n")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(stack_text("dev").rstrip("\n") + "\n" + WAIVERS)
    shutil.copytree(PACK_DIR, tmp_path / "policies", ignore=shutil.ignore_patterns("__pycache__"))
    waived_pack = start_pack(pack_dir=tmp_path / "policies")
    try:
        diagnostics, _ = analyze_all(waived_pack, bad_resources)
    finally:
        waived_pack.close()
    reported = {d.policyName for d in diagnostics}
    assert "AP-KMS-001" not in reported  # waived until 2099
    assert "AP-S3-005" in reported  # the waiver expired: the finding is back
    assert "AP-IAM-001" in reported  # unwaived rules still report


def test_a_google_cloud_stack_raises_only_what_check_reports(pack) -> None:
    """The GCP rules run in the pack on a GCP stack and report exactly the rules `check` reports."""
    from accelplane.config.loader import load_stack
    from accelplane.program import offline_graph

    resources = from_offline_graph(offline_graph(load_stack("tpu-prod")))
    diagnostics, _ = analyze_all(pack, resources)
    expected = {f.rule.id for f in evaluate(ReferenceGraph(resources)).findings}
    assert expected and {d.policyName for d in diagnostics} == expected
